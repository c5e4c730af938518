"""The declarative base shared by the core and plugins."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeAlias

from sqlalchemy import DateTime, MetaData, Select, type_coerce
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import NullType, TypeDecorator

# Stable constraint names, so Alembic revisions name the same constraint on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# A SELECT of any columns: the type of statements built to be combined or filtered further
# (the access rules' related accounts), whose columns the caller does not fix.
AnySelect: TypeAlias = Select[*tuple[Any, ...]]


def utcnow() -> datetime:
    """Now, in UTC, truncated to whole seconds: the wire shows epoch milliseconds that always
    end in 000, and a created resource must read back equal to the POST response."""
    return datetime.now(UTC).replace(microsecond=0)


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


def stored(column: Any) -> Any:
    """``column`` selected as the driver returns it, without SQLAlchemy's processing of its
    type (for :func:`stored_epoch_ms`)."""
    return type_coerce(column, NullType())


def stored_epoch_ms(value: str | datetime | None) -> int | None:
    """The epoch milliseconds (:func:`seqcore.parsing.timestamps.epoch_ms`) of a
    :class:`UTCDateTime` value as the driver returns it (:func:`stored`): SQLite's ISO text,
    PostgreSQL's naive datetime. The same number as loading the value through its type and
    converting it, at a fraction of the cost, for collections of thousands of rows."""
    if value is None:
        return None
    if type(value) is str:
        value = datetime.fromisoformat(value)  # what SQLAlchemy's SQLite type does
    since = value - _EPOCH  # type: ignore[operator]
    # As datetime.timestamp() computes it (microseconds over a million, a float), so that
    # int() rounds exactly as in epoch_ms.
    return int(((since.days * 86400 + since.seconds) * 1_000_000 + since.microseconds)
               / 1_000_000) * 1000


_EPOCH = datetime(1970, 1, 1)


class Base(DeclarativeBase):
    """Base of every mapped class in seqcore and its plugins."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime()}
