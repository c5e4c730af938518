"""``/-/activity``: the activity of every project the caller may read, newest first, a page
at a time (a cursor in the query string, ``before``, so each page has a URL and the pages
do not shift when something new happens). The entries are the domain's
(:func:`seqcore.governance.activity.feed`): metadata changes of fields the caller may not
read are left out, as on the project's Manage page and REST's ``/activity``."""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.governance.activity import ActivityQuery, feed
from seqcore.models.project import Project
from seqcore.security.access import PROJECT
from seqcore.security.fieldaccess import Caller
from seqcore.web.guard import PageError, add_page, signed_in
from seqcore.web.i18n import _
from seqcore.web.render import page

PER_PAGE = 50


def activity_page(request: Request) -> Response:
    identity = signed_in(request)
    before = request.GET.get("before", "")
    if before and (not before.isdigit() or len(before) > 18):
        raise PageError(400, _("\"${name}\" must be a whole number from 1."),
                        name="before")
    readable = select(Project.id).where(PROJECT.readable(identity.user_id, identity.role))
    db = request.db
    entries, cursor = feed(db, Caller.of(identity),
                           ActivityQuery(limit=PER_PAGE, before_id=int(before) if before
                                         else None), readable)
    ids = {entry["projectId"] for entry in entries if entry["projectId"] is not None}
    names = {project_id: name for project_id, name in db.execute(
        select(Project.id, Project.name).where(Project.id.in_(ids)))} if ids else {}
    return page(request, "activity.mako", entries=entries, names=names, cursor=cursor,
                first=not before)


def includeme(config: Configurator) -> None:
    add_page(config, "web.activity", "/-/activity", activity_page)
