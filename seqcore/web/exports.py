"""Data exports: the list of the exports the caller may read (as REST's ``/api/exports``
lists them), with their state kept current while one is being prepared (the list's frame
reloads itself, as the analyses list does), a download link for ready ones and deletion;
and the form of the samples table that asks for one. The operations are the domain's
(:func:`seqcore.exports.selection.create_export`, :func:`seqcore.exports.jobs.delete_export`,
:func:`seqcore.exports.download.bundle_response`), under the permissions REST asks
(``export:create`` on the project, ``export:read`` and ``export:delete`` on the export) on
the same traversal contexts, so nobody downloads or deletes through a page what REST would
hide from them."""

from __future__ import annotations

from html import escape
from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import func, select

from seqcore.analysis.launching import Actor
from seqcore.exports.contents import export_kinds
from seqcore.exports.download import bundle_response
from seqcore.exports.jobs import delete_export
from seqcore.exports.selection import create_export
from seqcore.models.export import DataExport, ExportState
from seqcore.models.project import Project
from seqcore.security.access import EXPORT
from seqcore.security.fieldaccess import Caller, readable_fields
from seqcore.security.permissions import Permission
from seqcore.web.guard import add_page, context_at, require, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.labels import STATES
from seqcore.web.projects import selected_ids
from seqcore.web.render import page
from seqcore.web.table import Cell, Column, Filter, Row, Table, TablePage, page_of

#: States an export leaves on its own: while one is listed, the list refreshes itself.
PREPARING = {ExportState.QUEUED.value, ExportState.RUNNING.value}

TABLE = Table(
    "exports",
    (Column("name", _("Name"), sortable=True), Column("project", _("Project"), sortable=True),
     Column("state", _("State"), sortable=True), Column("created", _("Created"), sortable=True),
     Column("expires", _("Expires"), sortable=True), Column("size", _("Size"), numeric=True),
     Column("actions", _("Actions"))),
    filters=(Filter("state", _("State"), "choice",
                    tuple((state.value, STATES[state.value]) for state in ExportState)),),
    default_sort="created", default_descending=True, caption=_("Data exports"))


def _size(size: int | None) -> str:
    """A bundle's size in decimal units (``2.4 MB``); empty until it is built."""
    if size is None:
        return ""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _when(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else ""


def exports_page(request: Request) -> Response:
    identity = signed_in(request)
    state = TABLE.state(request.GET)
    statement = select(DataExport, Project.name).join(
        Project, Project.id == DataExport.project_id).where(
        EXPORT.readable(identity.user_id, identity.role))
    if state.filters.get("state"):
        statement = statement.where(DataExport.state == state.filters["state"])
    token = request.session.get_csrf_token()
    preparing = False

    def actions(export: DataExport, name: str) -> str:
        parts = []
        if export.state == ExportState.READY.value:
            parts.append(
                f'<a href="{escape(request.route_path("web.export.download", id=export.id))}"'
                f' data-turbo="false" download>{escape(translate(request, _("Download")))}'
                f'<span class="visually-hidden"> {escape(name)}</span></a>')
        label = translate(request, _("Delete ${name}", mapping={"name": name}))
        parts.append(
            f'<form method="post" class="inline" action="'
            f'{escape(request.route_path("web.export.delete", id=export.id))}">'
            f'<input type="hidden" name="csrf_token" value="{escape(token)}">'
            f'<button type="submit" class="secondary" aria-label="{escape(label)}">'
            f'{escape(translate(request, _("Delete")))}</button></form>')
        return " ".join(parts)

    def to_row(row: Any) -> Row:
        nonlocal preparing
        export, project_name = row
        preparing = preparing or export.state in PREPARING
        name = export.name or translate(request, _("Data export ${id}",
                                                   mapping={"id": export.id}))
        label = translate(request, STATES.get(export.state, export.state))
        return Row(str(export.id), (
            Cell(name),
            Cell(project_name, request.route_path("web.project", id=export.project_id)),
            Cell(html=f'<span class="badge state-{escape(export.state)}">{escape(label)}'
                      "</span>"
                      + (f' <span class="muted">{escape(export.error)}</span>'
                         if export.error else "")),
            Cell(_when(export.created)), Cell(_when(export.expires_at)),
            Cell(_size(export.size)), Cell(html=actions(export, name))))

    rows, total = page_of(request.db, statement, state,
                          {"name": func.coalesce(DataExport.name, ""),
                           "project": Project.name, "state": DataExport.state,
                           "created": DataExport.created,
                           "expires": DataExport.expires_at}, DataExport.id, to_row)
    return page(request, "exports.mako", table=TablePage(TABLE, state, rows, total),
                preparing=preparing)


def download(request: Request) -> Response:
    """The bundle, as REST's download answers it (ranges included)."""
    signed_in(request)
    context = context_at(request, "exports", request.matchdict["id"], "download")
    require(request, context, Permission.EXPORT_READ)
    response = bundle_response(request.storage, context.export, stream=request.registry.settings
                               .get("seqcore.storage.downloads") == "stream")
    # The page answers' headers, but not ``no-store``: a download may be resumed.
    response.headers["X-Frame-Options"] = "DENY"
    return response


def remove(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "exports", request.matchdict["id"])
    require(request, context, Permission.EXPORT_DELETE)
    export = context.export
    name = export.name or translate(request, _("Data export ${id}", mapping={"id": export.id}))
    delete_export(request.db, request.storage, request.tm, export)
    request.session.flash(translate(request, _("${name} deleted.", mapping={"name": name})))
    return HTTPSeeOther(location=request.route_path("web.exports"))


def create(request: Request) -> Response:
    """A data export of the selected samples (their files of every kind and their line list
    with the columns the caller may read), queued for the worker; then the list, where it
    appears and its state changes."""
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"], "exports")
    require(request, context, Permission.EXPORT_CREATE)
    project = context.__parent__.project
    access = readable_fields(request.db, Caller.of(identity), project.id)
    body: dict[str, Any] = {"samples": selected_ids(request, project.id, access)}
    name = request.POST.get("export_name", "").strip()
    if name:
        body["name"] = name
    export = create_export(request.db, Actor(request), project, body,
                           export_kinds(request.registry))
    request.session.flash(translate(request, _(
        "Data export ${id} queued: it is listed here, and can be downloaded once ready.",
        mapping={"id": export.id})))
    return HTTPSeeOther(location=request.route_path("web.exports"))


def includeme(config: Configurator) -> None:
    add_page(config, "web.exports", "/-/exports", exports_page)
    add_page(config, "web.export.download", "/-/exports/{id:\\d+}/download", download)
    add_page(config, "web.export.delete", "/-/exports/{id:\\d+}/delete", remove,
             method="POST")
    add_page(config, "web.project.exports", "/-/projects/{id:\\d+}/exports", create,
             method="POST")
