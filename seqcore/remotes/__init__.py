"""Remote APIs: other installs (IRIDA, IRIDA Next, another seqcore) this one reads from.

:mod:`~seqcore.remotes.registry` is the administrators' register of them (the REST
collection ``/api/remoteapis``, the page ``/-/admin/remotes`` and ``seqcore remotes`` all
call it, so they refuse the same things in the same words);
:mod:`~seqcore.remotes.authorization` is this install's side of OAuth2's authorization-code
flow with PKCE, by which each user connects their own account there; and
:mod:`~seqcore.remotes.connections` gives a client of the remote for a user's connection,
refreshing its token when it nears its end, which synchronized projects read with.

It stands beside :mod:`seqcore.imports`, whose HTTP client
(:class:`seqcore.imports.remote.Remote`) it hands out, above the rest of the domain, and
knows nothing of HTTP servers: the transports (``rest``, ``web``, ``cli``) call it.
"""
