"""``/``: what seqcore is, for a visitor; the dashboard, for a signed-in account (its groups
and projects, running analyses, recent activity, and the ways into the APIs). Every list is
the domain's visibility condition for the account, as REST's and GraphQL's lists are."""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.governance.activity import ActivityQuery, activities
from seqcore.models.analysis import AnalysisState, AnalysisSubmission
from seqcore.models.group import Group
from seqcore.models.project import Project
from seqcore.security.access import GROUP, PROJECT, SUBMISSION
from seqcore.security.fieldaccess import Caller
from seqcore.security.policy import session_identity
from seqcore.web.guard import add_page, signed_in
from seqcore.web.render import page

#: States an analysis leaves on its own: the dashboard lists them as running.
FINISHED = (AnalysisState.COMPLETED.value, AnalysisState.ERROR.value)
SHOWN = 10


def home(request: Request) -> Response:
    identity = session_identity(request)
    if identity is None:
        return page(request, "landing.mako")
    return dashboard(request)


def dashboard(request: Request) -> Response:
    identity = signed_in(request)
    db = request.db
    groups = db.scalars(select(Group).where(
        GROUP.readable(identity.user_id, identity.role), Group.parent_id.is_(None))
        .order_by(Group.full_path).limit(SHOWN)).all()
    projects = db.scalars(select(Project).where(
        PROJECT.readable(identity.user_id, identity.role), Project.archived_at.is_(None))
        .order_by(Project.modified.desc().nulls_last(), Project.id.desc()).limit(SHOWN)).all()
    running = db.scalars(select(AnalysisSubmission).where(
        SUBMISSION.readable(identity.user_id, identity.role),
        AnalysisSubmission.state.not_in(FINISHED))
        .order_by(AnalysisSubmission.id.desc()).limit(SHOWN)).all()
    recent = db.scalars(select(AnalysisSubmission).where(
        SUBMISSION.readable(identity.user_id, identity.role),
        AnalysisSubmission.state.in_(FINISHED))
        .order_by(AnalysisSubmission.id.desc()).limit(5)).all()
    activity = recent_activity(db, Caller.of(identity), [p.id for p in projects[:5]])
    return page(request, "dashboard.mako", groups=groups, projects=projects,
                running=running, recent=recent, activity=activity)


def recent_activity(db: Session, caller: Caller, project_ids: list[int]) -> list[dict]:
    """The newest entries of the trails of a few projects, as the caller may see them."""
    entries: list[dict] = []
    for project_id in project_ids:
        found, _cursor = activities(db, caller, ActivityQuery(limit=5), project_id=project_id)
        entries.extend({**entry, "project_id": project_id} for entry in found)
    entries.sort(key=lambda entry: entry["created"], reverse=True)
    return entries[:SHOWN]


def includeme(config: Configurator) -> None:
    # web.home's route is registered with the sign-in pages; its view lives here.
    add_page(config, "web.home", None, home)
    add_page(config, "web.dashboard", "/-/dashboard", dashboard)
