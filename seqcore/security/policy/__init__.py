"""The security policy: a top-level policy choosing one sub-policy per credential kind
(bearer token, personal access token, session), and ACLs for authorization."""

from seqcore.security.policy.base import Credentials, SubPolicy
from seqcore.security.policy.bearer import BearerTokenPolicy, bearer_token, token_check
from seqcore.security.policy.personal_token import PersonalAccessTokenPolicy
from seqcore.security.policy.session import (
    SESSION_KEY,
    SESSION_USER,
    SessionPolicy,
    session_identity,
)
from seqcore.security.policy.top_level import (
    GRAPHQL_PATH,
    TopLevelPolicy,
    credentials,
    principals_for,
)

__all__ = [
    "GRAPHQL_PATH",
    "SESSION_KEY",
    "SESSION_USER",
    "BearerTokenPolicy",
    "Credentials",
    "PersonalAccessTokenPolicy",
    "SessionPolicy",
    "SubPolicy",
    "TopLevelPolicy",
    "bearer_token",
    "credentials",
    "principals_for",
    "session_identity",
    "token_check",
]
