"""OAuth2 for the REST API: the token endpoint, authorization-code flow and revocation.

The protocol work is oauthlib's (:mod:`seqcore.oauth.validator` is its storage adapter);
this package adds the client registry, hashed token storage and the wire details real IRIDA
clients depend on (see ``docs/security.md``).
"""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.oauth.views")
