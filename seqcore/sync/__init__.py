"""Synchronized projects (IRIDA's remote sync): a local project that mirrors a project of
another install, read with one user's connection to it and refreshed by the worker's
``sync`` round on the project's ``sync_frequency`` (``docs/sync.md``).

The copying is the import's (:mod:`seqcore.imports.copying`), with a map of its own per
synchronized project, so a sync is resumable and copies only what the map lacks; on top of
it a sync updates samples and metadata that changed there and removes what was removed
there.
"""
