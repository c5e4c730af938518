"""The core's tests use the test kit exactly as a plugin would (pytest11 ``seqcore``).

They load the first-party sequence-file kinds and a small test analysis type, so the
authorization matrix and the analysis framework are exercised with real plugins; the core's
behaviour with no plugin at all is tested by building separate apps
(``tests/functional/test_plugins.py``).

Modules whose tests reach no database at all (the QC engine against FastQC, the meta-tests
of the docs and imports, pure functions) say so with ``pytest.mark.database_independent``:
``.ci/run`` runs them in its SQLite pass only (``-m "not database_independent"`` on
PostgreSQL), since they do the same work whatever ``SEQCORE_TEST_DATABASE_URL`` names.
The kit's collection check (``seqcore.testing.databaseindependent``, in every suite that uses
the kit) refuses the mark on a test that takes the kit's database fixtures or whose module
names a way to the suite's database (its URL, a database made from it, a worker on it). A live
server started without a ``sqlalchemy.url`` makes its own SQLite database whatever the suite
runs on, so the end-to-end modules that start only such servers (the IRIDA uploader, the
slow clients, generated plugins, the OAuth client library, ``./dev run``) carry the mark:
their PostgreSQL pass would repeat the SQLite pass's work byte for byte.
"""

import pytest


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_sequencefiles.plugin
    from tests.plugins import readcount

    return [seqcore_sequencefiles.plugin, readcount]
