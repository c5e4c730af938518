"""Projects: the list of the projects an account may read, the form creating one, and a
project's page, whose samples table is the line list (metadata columns chosen by the user or
by a template, server-side paging, sorting and filtering, selection across pages driving bulk
actions). Every read is the domain's, under the permissions REST asks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, cast

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.models.project import Project
from seqcore.parsing.schemas import ProjectSchema
from seqcore.projects.projects import ProjectValues, new_project
from seqcore.samples.linelist import FIXED, FORMATS, file_name, write_rows
from seqcore.samples.metadatafields import find_template, project_templates, template_columns
from seqcore.samples.sampletable import (
    SampleQuery,
    linelist_of,
    matching_ids,
    project_field_names,
    sample_page,
)
from seqcore.security.access import PROJECT
from seqcore.security.fieldaccess import Caller, readable_fields
from seqcore.security.permissions import Permission
from seqcore.web.forms import load_form
from seqcore.web.guard import PageError, add_page, context_at, may, parent_group, require, signed_in
from seqcore.web.i18n import _
from seqcore.web.navigation import has_route
from seqcore.web.render import page
from seqcore.web.sync import sync_panel
from seqcore.web.table import (
    BulkAction,
    Cell,
    Column,
    Filter,
    Row,
    Table,
    TablePage,
    kept_params,
    page_of,
)
from seqcore.web.uploads import may_upload_to_project, upload_area, upload_to_project

#: The form's names for the project columns (REST's names, so the messages match).
FORM_FIELDS = {"name": "name", "projectDescription": "description", "organism": "organism",
               "genomeSize": "genome_size", "minimumCoverage": "minimum_coverage",
               "maximumCoverage": "maximum_coverage"}

NUMBERS = {"genomeSize", "minimumCoverage", "maximumCoverage"}

PROJECTS_TABLE = Table(
    "projects",
    (Column("name", _("Name"), sortable=True), Column("namespace", _("Namespace")),
     Column("organism", _("Organism"), sortable=True),
     Column("created", _("Created"), sortable=True)),
    filters=(Filter("q", _("Name contains")),),
    default_sort="name", caption=_("Projects"))


def projects_page(request: Request, status: int = 200, **values: Any) -> Response:
    identity = signed_in(request)
    state = PROJECTS_TABLE.state(request.GET)
    # Archived projects are listed on request (?archived=1), and then alone.
    archived = request.GET.get("archived") == "1"
    statement = select(Project).where(PROJECT.readable(identity.user_id, identity.role),
                                      Project.archived_at.is_not(None) if archived
                                      else Project.archived_at.is_(None))
    if state.filters.get("q"):
        statement = statement.where(Project.name.ilike(f"%{state.filters['q']}%"))

    def to_row(row: Any) -> Row:
        project = row[0]
        return Row(str(project.id), (
            Cell(project.name, request.route_path("web.project", id=project.id)),
            Cell(f"{project.namespace}/{project.path}"), Cell(project.organism or ""),
            Cell(project.created.strftime("%Y-%m-%d"))))

    rows, total = page_of(request.db, statement, state,
                          {"name": Project.name, "organism": Project.organism,
                           "created": Project.created}, Project.id, to_row)
    values.setdefault("problems", {})
    values.setdefault("form", {})
    group_id = request.params.get("group", "")
    return page(request, "projects.mako", status=status,
                table=TablePage(PROJECTS_TABLE, state, rows, total),
                can_create=may(request, context_at(request, "projects"),
                               Permission.PROJECT_CREATE) or bool(group_id),
                group_id=group_id, archived=archived, **values)


def create(request: Request) -> Response:
    identity = signed_in(request)
    group = parent_group(request, "group_id", "projects", Permission.PROJECT_CREATE)
    form = {key: request.POST.get(key, "").strip() for key in FORM_FIELDS}
    # A form sends numbers as text; the schema (JSON's) wants them as numbers.
    values = {key: int(value) if key in NUMBERS and value.isascii() and value.isdigit()
              else value for key, value in form.items()}
    data, problems = load_form(ProjectSchema(), values)
    if not problems:
        try:
            project = new_project(request.db, identity.user_id, identity.username,
                                  cast(ProjectValues, {FORM_FIELDS[k]: v for k, v in data.items()}),
                                  group=group)
        except Invalid as error:
            problems = {key: " ".join(messages) for key, messages in error.problems.items()}
    if problems:
        request.tm.doom()
        return projects_page(request, status=400, problems=problems, form=form)
    request.session.flash(request.localizer.translate(
        _("Project ${name} created.", mapping={"name": project.name})))
    return HTTPSeeOther(location=request.route_path("web.project", id=project.id))


# -- the project page ------------------------------------------------------------------------

SAMPLE_FILTERS = (Filter("q", _("Name or PUID contains")),
                  Filter("created_from", _("Created from"), "date"),
                  Filter("created_to", _("Created until"), "date"))


def chosen_columns(request: Request, project_id: int, access: Any,
                   available: list[str]) -> tuple[list[str], Any]:
    """The metadata columns: ``template`` (id or name) if given, else the ``column`` values,
    else every readable field of the project (``available``, at most
    :data:`DEFAULT_COLUMNS`). ``available`` is passed in because listing a project's fields
    scans its metadata rows: at 100,000 samples it is most of the page's time, so the page
    reads it once."""
    db = request.db
    template_key = request.GET.get("template", "")
    if template_key:
        template = find_template(db, project_id, template_key)
        return list(template_columns(template, access)), template
    asked = request.GET.getall("column")
    if asked:
        unknown = [name for name in asked if name not in available]
        if unknown:
            raise PageError(400, _("There is no metadata field \"${name}\" to show."),
                            name=unknown[0])
        return asked, None
    return available[:DEFAULT_COLUMNS], None


DEFAULT_COLUMNS = 20


def sample_query(state: Any, per_page: int | None = None) -> SampleQuery:
    filters = state.filters
    return SampleQuery(text=filters.get("q", ""), created_from=state.date("created_from"),
                       created_to=state.date("created_to"), field=filters.get("field", ""),
                       value=filters.get("value", ""), sort=state.sort or "name",
                       descending=state.descending, offset=state.offset,
                       limit=per_page or state.per_page)


def samples_table(request: Request, project: Project, fields: list[str], columns: list[str],
                  can_write: bool, mirrored: bool = False) -> Table:
    """The samples table and its bulk actions. A ``mirrored`` (synchronized) project offers
    only what leaves its samples as they are (export, share, copy out, launch): setting
    metadata, moving and removing would be refused (seqcore.governance.readonly)."""
    field_choices = tuple((name, name) for name in fields)
    actions = [BulkAction("export_csv", _("Export line list (CSV)"),
                          request.route_path("web.project.export", id=project.id,
                                             _query={"format": "csv"})),
               BulkAction("export_xlsx", _("Export line list (XLSX)"),
                          request.route_path("web.project.export", id=project.id,
                                             _query={"format": "xlsx"}))]

    def action(name: str, label: Any, danger: bool = False) -> BulkAction:
        return BulkAction(name, label, request.route_path(
            "web.project.bulk", id=project.id, action=name), danger=danger)

    actions += [action("copy", _("Share")), action("clone", _("Copy"))]
    if not mirrored:
        actions.append(action("metadata", _("Set metadata")))
    if can_write and not mirrored:
        actions += [action("move", _("Move")), action("remove", _("Remove"), danger=True)]
    if has_route(request, "web.project.exports"):
        actions.append(BulkAction("export_bundle", _("Export data (bundle)"),
                                  request.route_path("web.project.exports", id=project.id)))
    if has_route(request, "web.analyses.new"):
        actions.append(BulkAction("launch", _("Launch an analysis"),
                                  request.route_path("web.analyses.new",
                                                     _query={"project": project.id}),
                                  method="post"))
    return Table(
        "samples",
        (Column("name", _("Sample"), sortable=True), Column("puid", _("PUID"), sortable=True),
         Column("created", _("Created"), sortable=True),
         *(Column(f"m:{name}", name, sortable=True) for name in columns)),
        filters=(*SAMPLE_FILTERS, Filter("field", _("Metadata field"), "choice", field_choices),
                 Filter("value", _("holding"))),
        default_sort="name", selectable=True, actions=tuple(actions),
        caption=_("Samples"), extra=("column", "template"))


def project_page(request: Request) -> Response:
    return project_view(request)


def project_view(request: Request, status: int = 200, outcomes: list[Any] | None = None
                 ) -> Response:
    """The page; ``outcomes`` are the refusals of an upload sent without JavaScript (shown
    beside the upload area, :mod:`seqcore.web.uploads`)."""
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    project = context.project
    db = request.db
    access = readable_fields(db, Caller.of(identity), project.id)
    fields = project_field_names(db, project.id, access)
    columns, template = chosen_columns(request, project.id, access, fields)
    can_write = may(request, context, Permission.PROJECT_WRITE)
    # The import page's right, on the context REST's import route uses.
    can_import = may(request, context["sampleImports"], Permission.SAMPLE_CREATE)
    sync = sync_panel(request, project, can_write)
    table = samples_table(request, project, fields, columns, can_write, mirrored=sync is not None)
    state = table.state(request.GET)
    rows, total = sample_page(db, project.id, sample_query(state), columns, access)
    table_rows = [Row(str(row.id), (
        Cell(row.name, request.route_path("web.sample", id=row.id)), Cell(row.puid),
        Cell(row.created.strftime("%Y-%m-%d")),
        *(Cell(row.values.get(name, "")) for name in columns))) for row in rows]
    sync = sync_panel(request, project, can_write)
    upload = (upload_area(request, request.route_path("web.project.files", id=project.id))
              if sync is None and may_upload_to_project(request, context) else None)
    return page(request, "project.mako", status=status, project=project, fields=fields,
                columns=columns, upload=upload, outcomes=outcomes or [],
                chosen_template=template, templates=project_templates(db, project.id),
                table=TablePage(table, state, table_rows, total,
                                kept_params(request.GET, table.extra)),
                can_write=can_write, can_import=can_import and sync is None, sync=sync)


def selected_ids(request: Request, project_id: int, access: Any) -> list[int]:
    """The bulk form's samples: every matching one (``all_matching``, with the filters the
    form carried) or the ``selected`` ids that are samples of this project."""
    from seqcore.models.sample import ProjectSample

    db = request.db
    if request.POST.get("all_matching"):
        carried = {key[len("filter."):]: value for key, value in request.POST.items()
                   if key.startswith("filter.")}
        table = Table("samples", (), filters=(*SAMPLE_FILTERS, Filter("field", ""),
                                              Filter("value", "")))
        return matching_ids(db, project_id, sample_query(table.state(carried)), access)
    wanted = {int(value) for value in request.POST.getall("selected") if value.isdigit()}
    if not wanted:
        raise PageError(400, _("Select at least one sample first."))
    return list(db.scalars(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == project_id, ProjectSample.sample_id.in_(wanted))
        .order_by(ProjectSample.sample_id)))


def export(request: Request) -> Response:
    """The selected samples' line list, with the columns the caller may read."""
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    require(request, context, Permission.EXPORT_CREATE)
    project = context.project
    fmt = request.GET.get("format", "csv")
    if fmt not in FORMATS:
        raise PageError(400, _("The line list is written as CSV, TSV or XLSX."))
    access = readable_fields(request.db, Caller.of(identity), project.id)
    ids = selected_ids(request, project.id, access)
    columns = project_field_names(request.db, project.id, access)
    out = io.BytesIO()
    write_rows(_header_then([*FIXED, *columns],
                            linelist_of(request.db, ids, columns, access)), fmt, out)
    response = Response(out.getvalue(), content_type=FORMATS[fmt])
    response.content_disposition = f'attachment; filename="{file_name(project.path, fmt)}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _header_then(header: list[str], rows: Iterator[list[str]]) -> Iterator[list[str]]:
    yield header
    yield from rows


def upload(request: Request) -> Response:
    """Files sent from the page's upload area (:mod:`seqcore.web.uploads`)."""
    return upload_to_project(request, lambda refused: project_view(request, status=400,
                                                                   outcomes=refused))


def includeme(config: Configurator) -> None:
    add_page(config, "web.projects", "/-/projects", projects_page)
    add_page(config, "web.projects", None, create, method="POST")
    add_page(config, "web.project", "/-/projects/{id}", project_page)
    add_page(config, "web.project.files", "/-/projects/{id:\\d+}/files", upload, method="POST")
    add_page(config, "web.project.export", "/-/projects/{id}/linelist", export, method="POST")

