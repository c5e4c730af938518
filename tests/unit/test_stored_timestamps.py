"""``seqcore.db.base.stored_epoch_ms`` gives the epoch milliseconds ``epoch_ms`` gives for a
``UTCDateTime`` loaded through its type, from the value as either driver returns it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from seqcore.db.base import UTCDateTime, stored_epoch_ms
from seqcore.parsing.timestamps import epoch_ms

pytestmark = pytest.mark.database_independent

VALUES = [
    datetime(2024, 1, 1, 12, 0, 0), datetime(2024, 1, 1, 12, 0, 0, 999_999),
    datetime(1970, 1, 1), datetime(1970, 1, 1, 0, 0, 0, 1), datetime(1969, 12, 31, 23, 59, 59),
    datetime(1969, 12, 31, 23, 59, 59, 500_000), datetime(1900, 6, 15, 3, 4, 5, 6),
    datetime(9999, 12, 31, 23, 59, 59, 999_999), datetime(2038, 1, 19, 3, 14, 8),
]


def loaded(dialect, stored_value):
    """The value as seqcore's models see it: through the column type's processing."""
    impl = UTCDateTime().dialect_impl(dialect)
    process = impl.result_processor(dialect, None)
    return process(stored_value) if process else stored_value


@pytest.mark.parametrize("value", VALUES, ids=str)
def test_sqlite_text(value):
    dialect = sqlite.dialect()
    text = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)(value.replace(tzinfo=UTC))
    assert isinstance(text, str)
    assert stored_epoch_ms(text) == epoch_ms(loaded(dialect, text))


@pytest.mark.parametrize("value", VALUES, ids=str)
def test_postgresql_naive_datetime(value):
    assert stored_epoch_ms(value) == epoch_ms(loaded(postgresql.dialect(), value))


def test_none():
    assert stored_epoch_ms(None) is None
