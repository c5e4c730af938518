"""OAuth2 for the REST API: the token endpoint, authorization-code flow and revocation.

The protocol work is oauthlib's (:mod:`seqcore.oauth.validator` is its storage adapter);
this package adds the client registry, hashed token storage and the wire details real IRIDA
clients depend on (see ``docs/security.md``).

Its two halves sit in two layers: :mod:`seqcore.oauth.views` is a transport of its own,
beside REST and GraphQL (it speaks RFC 6749's wire format and imports no other transport);
:mod:`seqcore.oauth.tokens` and :mod:`seqcore.oauth.validator` are the domain's token
service, which security and the web pages use, and :mod:`seqcore.oauth.clients` its client
registry, which the command line and the administrators' page use
(``[tool.importlinter]`` in pyproject.toml).
"""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.oauth.views")
