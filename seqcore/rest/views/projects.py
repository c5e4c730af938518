"""``/api/projects``: projects and their members."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any, cast

from pyramid.request import Request

from seqcore.db.base import stored_epoch_ms
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import links_for, links_template, url_for
from seqcore.models.project import Project
from seqcore.models.user import SystemRole
from seqcore.parsing.schemas import ProjectSchema
from seqcore.projects.projecthash import hashed_attachments, project_hash
from seqcore.projects.projects import ProjectValues, new_project
from seqcore.projects.projects import update_project as change_project
from seqcore.resources.projects import LIST_CALLER, LIST_COLUMNS, listing
from seqcore.rest.body import lenient_create, load
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import validation_error
from seqcore.rest.jsonscalars import scalar
from seqcore.rest.paging import page_links, paging
from seqcore.rest.values import epoch_ms
from seqcore.security.access import readable_projects
from seqcore.security.permissions import Permission

FIELDS = {
    "name": "name", "projectDescription": "description", "remoteURL": "remote_url",
    "organism": "organism", "genomeSize": "genome_size", "minimumCoverage": "minimum_coverage",
    "maximumCoverage": "maximum_coverage", "syncFrequency": "sync_frequency",
}


def project_fields(project: Any) -> dict[str, Any]:
    """The fields of a project (a mapped :class:`Project` or a row of its columns)."""
    fields = {"name": project.name, "createdDate": epoch_ms(project.created),
              "modifiedDate": epoch_ms(project.modified)}
    for key, attr in FIELDS.items():
        if key != "name":
            fields[key] = getattr(project, attr)
    fields["label"] = project.name
    return fields


def project_entry(request: Request, context: Any) -> dict[str, Any]:
    """A project's entry, from the columns traversal read (no ORM load), or from the mapped
    project if the request loaded it (it may have changed it)."""
    row = context.__dict__.get("_project") or context.row
    return entry(request, context, project_fields(row), identifier=row.id)


# An id that occurs nowhere else in a URL: the links of one entry are rendered for it and
# every entry's id is substituted in (seqcore.framework.links.links_template).
SENTINEL = 918273645546371
# json.dumps as the REST renderer calls it (default separators, ASCII escapes).
ENCODE = json.JSONEncoder().encode


# The listing's columns (seqcore.resources.projects.LIST_COLUMNS) are the id, the name, the
# two timestamps and FIELDS' other columns in FIELDS' order.
assert [c.key for c in LIST_COLUMNS[4:]] == [a for k, a in FIELDS.items() if k != "name"]


def archived_requested(request: Request) -> bool:
    """Whether a list shows archived projects (``?archived=true``) or live ones (``false``,
    the default); anything else is a 400."""
    value = request.GET.get("archived", "false").lower()
    if value not in ("true", "false"):
        raise validation_error({"archived": ["Must be true or false."]})
    return value == "true"


def archived_condition(request: Request) -> Any:
    """The projects a list shows by ``?archived=`` (:func:`archived_requested`)."""
    if archived_requested(request):
        return Project.archived_at.is_not(None)
    return Project.archived_at.is_(None)


def list_projects(request: Request) -> Any:
    """Every readable project (live ones; ``?archived=true``: archived ones), from plain
    rows (no ORM objects). The links of one entry are rendered and encoded once, and each
    entry's id substituted in; each entry's fields are written value by value
    (:func:`seqcore.rest.jsonscalars.scalar`), so thousands of entries cost little more
    than their values. The bytes are those the JSON renderer writes for the same
    envelope."""
    identity = request.identity
    context = request.context
    archived = archived_requested(request)
    sentinel = str(SENTINEL)
    template = links_template(request, context.resource_for(Project(id=SENTINEL)), sentinel)
    if template is None:  # some link depends on the project's state: render each one
        query = readable_projects(identity.user_id, identity.role).where(
            archived_condition(request))
        projects = request.db.scalars(query)
        return collection(request, context,
                          (project_entry(request, context.resource_for(p)) for p in projects))
    # The links' JSON in pieces around the id: each entry's joined by its own id.
    links_parts = ENCODE(template(sentinel)).split(sentinel)
    db = request.db
    db.flush()  # plain rows from the session's connection: the ORM's row handling skipped
    page = paging(request)
    read = listing(SystemRole(identity.role).value, archived)
    rows: list[tuple[Any, ...]]
    if page.limit is None:
        rows = read.tuples(db.connection(), **{LIST_CALLER: identity.user_id})
    else:  # ?limit pages in SQL, as the project's samples do
        paged = read.statement.limit(page.limit + 1).offset(page.offset)
        rows = [tuple(row) for row in db.connection().execute(
            paged, {LIST_CALLER: identity.user_id})]
    more = page.limit is not None and len(rows) > page.limit
    rows = rows[:page.limit] if page.limit is not None else rows
    entries: list[str] = []
    append = entries.append
    text = encode_basestring_ascii
    for (pid, name, created, modified, description, remote_url, organism, genome_size,
         minimum_coverage, maximum_coverage, sync_frequency) in rows:
        identifier = str(pid)
        name_json = text(name) if type(name) is str else scalar(name)
        created_ms = stored_epoch_ms(created)
        modified_ms = stored_epoch_ms(modified)
        # The fields of project_fields, in its order, as the renderer writes them: strings
        # and integers (an int's text is its JSON) written without a call, nulls as null.
        append(
            f'{{"name": {name_json}, '
            f'"createdDate": {"null" if created_ms is None else created_ms}, '
            f'"modifiedDate": {"null" if modified_ms is None else modified_ms}, '
            '"projectDescription": '
            f'{text(description) if type(description) is str else scalar(description)}, '
            f'"remoteURL": {"null" if remote_url is None else scalar(remote_url)}, '
            f'"organism": {"null" if organism is None else scalar(organism)}, '
            f'"genomeSize": {"null" if genome_size is None else scalar(genome_size)}, '
            '"minimumCoverage": '
            f'{"null" if minimum_coverage is None else scalar(minimum_coverage)}, '
            '"maximumCoverage": '
            f'{"null" if maximum_coverage is None else scalar(maximum_coverage)}, '
            '"syncFrequency": '
            f'{"null" if sync_frequency is None else scalar(sync_frequency)}, '
            f'"label": {name_json}, "links": {identifier.join(links_parts)}, '
            f'"identifier": "{identifier}"}}')
    links = links_for(request, context)
    if page.limit is not None:
        links = [*links, *page_links(request, page.page, more)]
    own_links = ENCODE(links)
    response = request.response
    response.content_type = "application/json"
    response.text = ('{"resource": {"resources": [' + ", ".join(entries) +
                     f'], "links": {own_links}}}}}')
    return response


def create_project(request: Request) -> dict:
    data = load(request, ProjectSchema(), allow_unknown=lenient_create(request))
    project = new_project(request.db, request.identity.user_id, request.identity.username,
                          cast(ProjectValues, {FIELDS[k]: v for k, v in data.items()}))
    context = request.context.resource_for(project)
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": project_entry(request, context)}


def get_project(request: Request) -> dict:
    return {"resource": project_entry(request, request.context)}


def update_project(request: Request) -> dict:
    data = load(request, ProjectSchema(), partial=True)
    change_project(request.db, request.context.project,
                   cast(ProjectValues, {FIELDS[k]: v for k, v in data.items()}))
    return links_only([("self", url_for(request, request.context)),
                       ("collection", url_for(request, request.context.__parent__))])


def delete_project(request: Request) -> dict:
    """Delete the project, and the samples no other project holds."""
    from seqcore.projects.projects import delete_project as remove_project

    remove_project(request.db, request.registry.pm, request.context.project, request)
    return links_only([("collection", url_for(request, request.context.__parent__))])


def get_project_hash(request: Request) -> dict:
    """The project's hash (:mod:`seqcore.projects.projecthash`), as IRIDA answers it: its
    synchronisation client compares it with the last one it saw and skips the project when
    they are equal."""
    context = request.context
    value = project_hash(request.db, context.project, hashed_attachments(request.registry))
    return {"resource": {"projectHash": value, "links": [
        {"rel": "self", "href": url_for(request, context, "hash")},
        {"rel": "project", "href": url_for(request, context)},
    ]}}


# -- analyses shared with the project ---------------------------------------------------------


def _project_analyses(request: Request) -> dict:
    from seqcore.rest.views.analyses import project_analyses

    return project_analyses(request)


ENDPOINTS = [
    Endpoint("api.projects", "/api/projects", {
        "GET": View(list_projects, Permission.API_READ),
        "POST": View(create_project, Permission.PROJECT_CREATE),
    }, description="Projects the caller can read; POST creates one owned by the caller."),
    Endpoint("api.project", "/api/projects/{pid:\\d+}", {
        "GET": View(get_project, Permission.PROJECT_READ),
        "PATCH": View(update_project, Permission.PROJECT_WRITE),
        "DELETE": View(delete_project, Permission.PROJECT_WRITE),
    }, description="One project."),
    Endpoint("api.project.hash", "/api/projects/{pid:\\d+}/hash", {
        "GET": View(get_project_hash, Permission.PROJECT_READ),
    }, traverse="/api/projects/{pid}",
       description="The project's hash: changes whenever its samples, their metadata or "
                   "their files change (IRIDA's synchronisation skips unchanged projects)."),
    Endpoint("api.project.analyses", "/api/projects/{pid:\\d+}/analyses", {
        "GET": View(_project_analyses, Permission.PROJECT_READ),
    }, description="Analysis submissions shared with the project."),
]
