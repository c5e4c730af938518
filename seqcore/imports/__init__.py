"""Copying projects from another install into this one (``seqcore import``).

:mod:`~seqcore.imports.remote` speaks HTTP to the other install (an OAuth2 token, JSON,
streamed downloads), :mod:`~seqcore.imports.idmap` keeps the map from its objects to ours
that makes an import idempotent and resumable, :mod:`~seqcore.imports.irida` reads an IRIDA
install's REST API and :mod:`~seqcore.imports.iridanext` an IRIDA Next install's GraphQL API
into a :class:`~seqcore.imports.plan.Plan` (what will be copied, and every problem), which
:mod:`~seqcore.imports.copying` writes through the domain's own operations (the same
validation as any client's write)."""
