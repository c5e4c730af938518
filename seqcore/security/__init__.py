"""Authentication and authorization.

Flow (``docs/security.md`` has the long form):

1. :mod:`seqcore.security.tweens` answers 401 for any ``/api`` request without valid
   credentials before traversal can answer 404, and 403 when the token's scope does not
   cover the HTTP verb (``read`` for GET/HEAD, ``write`` for everything else).
2. :class:`~seqcore.security.policy.TopLevelPolicy` picks one sub-policy per request (bearer
   token for REST, personal access token over Basic or the session for GraphQL, the session
   for web pages), which turns the credential into a detached
   :class:`~seqcore.security.identity.Identity`; ``permits`` reads the context's ACL, with
   principals for the user and every system role the user's role implies.
3. Views declare a :class:`~seqcore.security.permissions.Permission`; a denied permission on
   something the caller cannot even read becomes 404, so existence does not leak.

The ACLs of the traversal contexts and the SQL conditions of list views and GraphQL come
from one definition per resource type, :mod:`seqcore.security.access`; who reads which
metadata field is :mod:`seqcore.security.fieldaccess`, and access inherited down the group
tree and through group shares is :mod:`seqcore.security.inheritance`.

Part of the domain layer; it imports no transport (a contract says so).
"""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    from seqcore.security.policy import TopLevelPolicy

    config.set_security_policy(TopLevelPolicy())
    config.include("seqcore.security.proxies")
    config.include("seqcore.security.formlimit")
    config.include("seqcore.security.tweens")
