"""The signed-in session: the credential of web pages and GraphiQL (and of GraphQL requests
that send no ``Authorization`` header).

The cookie carries the account id and the secret of a server-side
:class:`~seqcore.models.access_token.WebSession` row (:mod:`seqcore.security.credentials`);
the session is valid only while that row lives, so signing out and changing a password end
it at once.
"""

from __future__ import annotations

from typing import cast

from pyramid.request import Request

from seqcore.security.credentials import web_session_user
from seqcore.security.identity import Identity
from seqcore.security.policy.base import Credentials, identity_of

SESSION_SCOPES = frozenset({"read_api", "api"})
SESSION_USER = "user_id"
SESSION_KEY = "session_key"  # the secret of the session's WebSession row
NOT_SIGNED_IN = ("Authentication is required: send 'Authorization: Basic <base64 of "
                 "email:personal access token>' or sign in at /users/sign_in.")


def session_identity(request: Request) -> Identity | None:
    """The signed-in user of the session cookie, if the session has not been ended and the
    account still exists and is enabled (one statement, once per request).

    Web pages ask this directly whatever their path (the OAuth consent page lives under
    ``/api``): a page shows who is signed in even where another credential authenticates.
    """
    if "seqcore.session_identity" not in request.environ:
        identity = None
        user = web_session_user(request.db, request.session.get(SESSION_KEY),
                                request.session.get(SESSION_USER))
        if user is not None:
            identity = identity_of(user, SESSION_SCOPES)
        request.environ["seqcore.session_identity"] = identity
    return cast("Identity | None", request.environ["seqcore.session_identity"])


class SessionPolicy:
    """Web pages, GraphiQL, and GraphQL requests without an ``Authorization`` header."""

    method = "session"

    def authenticate(self, request: Request) -> Credentials:
        identity = session_identity(request)
        if identity is None:
            return Credentials(None, error=NOT_SIGNED_IN)
        return Credentials(identity, self.method)
