"""Data exports: bundles (zip) of a project's samples, files, line list and analysis outputs,
prepared in the background for the account that asked, downloaded when ready, purged when
they expire (``docs/exports.md``).

:mod:`~seqcore.exports.selection` checks a request and makes the export;
:mod:`~seqcore.exports.contents` says what goes in (and reads the line list for the
requester); :mod:`~seqcore.exports.bundle` writes the zip; :mod:`~seqcore.exports.jobs`
holds every later change; :mod:`~seqcore.exports.worker` is the worker's part.
:mod:`~seqcore.exports.backups` writes and restores a whole deployment (database and stored
files together). Part of the domain layer; it imports no transport.
"""
