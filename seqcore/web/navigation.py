"""The main navigation of every page: what a signed-in person reaches from anywhere.

An entry names a route; entries whose route is not registered (a page left out of a
deployment) are skipped rather than linking to a 404. Administrators see the administration
entries too.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyramid.interfaces import IRoutesMapper
from pyramid.request import Request

from seqcore.security.identity import Identity
from seqcore.web.i18n import _


@dataclass(frozen=True)
class Entry:
    route: str
    label: str
    admin: bool = False
    #: Pages that are not Turbo pages (GraphiQL, Redoc load their own applications).
    full_load: bool = False


MAIN: tuple[Entry, ...] = (
    Entry("web.dashboard", _("Dashboard")),
    Entry("web.groups", _("Groups")),
    Entry("web.projects", _("Projects")),
    Entry("web.analyses", _("Analyses")),
    Entry("web.exports", _("Data exports")),
    Entry("web.activity", _("Activity")),
    Entry("web.tokens", _("Access Tokens")),
    Entry("web.remotes", _("Remote APIs")),
    Entry("web.graphiql", _("GraphiQL"), full_load=True),
    Entry("web.redoc", _("REST reference"), full_load=True),
    Entry("web.admin.accounts", _("Accounts"), admin=True),
    Entry("web.admin.clients", _("OAuth clients"), admin=True),
    Entry("web.admin.remotes", _("Remote API register"), admin=True),
)


def has_route(request: Request, name: str) -> bool:
    mapper = request.registry.queryUtility(IRoutesMapper)
    return mapper is not None and mapper.get_route(name) is not None


def entries(request: Request, identity: Identity | None) -> list[Entry]:
    """The entries ``identity`` sees (none when nobody is signed in)."""
    if identity is None:
        return []
    return [entry for entry in MAIN
            if (identity.is_admin or not entry.admin) and has_route(request, entry.route)]
