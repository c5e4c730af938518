"""No page seqcore serves may be framed by another site (clickjacking): a page with a
password field or an approve button, framed invisibly over a decoy, would take a click or a
password meant for something else.

Every HTML response of the application, whichever transport made it (the workbench's pages,
the sign-in page, OAuth's consent page, GraphiQL, Redoc), carries ``X-Frame-Options: DENY``
and the Content-Security-Policy directive ``frame-ancestors 'none'`` (the header older
browsers and the one newer ones read). A response that set its own policy keeps it."""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.events import NewResponse


def forbid_framing(event: NewResponse) -> None:
    response = event.response
    if not (response.content_type or "").startswith("text/html"):
        return
    response.headers.setdefault("X-Frame-Options", "DENY")
    policy = response.headers.get("Content-Security-Policy")
    if policy is None:
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    elif "frame-ancestors" not in policy:
        response.headers["Content-Security-Policy"] = f"{policy}; frame-ancestors 'none'"


def includeme(config: Configurator) -> None:
    config.add_subscriber(forbid_framing, NewResponse)
