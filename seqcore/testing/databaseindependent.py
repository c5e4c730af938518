"""The ``database_independent`` mark, and the collection check that keeps it honest.

A test that reaches no database, or only SQLite databases of its own whatever
``SEQCORE_TEST_DATABASE_URL`` names (a live server started without a ``sqlalchemy.url``, a
benchmark's temporary files), does the same work on every suite database: ``.ci/run`` runs it
in its SQLite pass only (``-m "not database_independent"`` on PostgreSQL). The kit applies the
check to every suite that uses it (the core's, each plugin's), so a plugin's module can carry
the mark on the same terms: collection refuses it on a test that takes the kit's database
fixtures (they all need ``database_url``) or whose module names a way to the suite's database.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable

import pytest

MARK = "database_independent"

# What a module names when its tests reach the suite's database other than through the
# fixtures (a live server reaches it only when given a URL from one of these).
DATABASE_ROUTES = ("seqcore.testing.database", "test_database_url", "copy_database",
                   "URL_VARIABLE", "SEQCORE_TEST_DATABASE_URL", "start_worker")


def misplaced(items: Iterable[pytest.Item]) -> list[str]:
    """The node ids of the tests marked database-independent that reach the suite's
    database: through a fixture needing ``database_url``, or a route their module names."""
    sources: dict[str, str] = {}
    wrong = []
    for item in items:
        if item.get_closest_marker(MARK) is None:
            continue
        module = getattr(item, "module", None)
        name = str(getattr(module, "__name__", ""))
        if module is not None and name not in sources:
            sources[name] = inspect.getsource(module)
        source = sources.get(name, "")
        if "database_url" in getattr(item, "fixturenames", ()) or any(
                route in source for route in DATABASE_ROUTES):
            wrong.append(item.nodeid)
    return wrong


def refuse_misplaced(items: list[pytest.Item]) -> None:
    """Stop the session (a usage error, before any test runs) when the mark is misplaced."""
    wrong = misplaced(items)
    if wrong:
        raise pytest.UsageError(
            f"marked {MARK} but reaching a database: " + ", ".join(wrong[:5]))
