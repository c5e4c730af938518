"""Persistent unique ids (PUIDs) in IRIDA Next's shape, ``INXT_<KIND>_<10 characters>``, and
the register of every one ever issued.

The ten characters are the creation time in RFC 4648 base32 (``A``-``Z``, ``2``-``7``), as
IRIDA Next writes them: two for the year after 2000, one for the month, one for the day and
six for the time of day in units of 1/12,228 s (about 82 µs). Decoded, they sort in creation
order, so a PUID tells a curator when its object was made.

Two objects made in the same unit of time would get the same text. Each process therefore
never issues a time at or before the last one it issued for a kind, and every PUID is
entered in the register (table ``puid``) by the statement that inserts its object, in the
same transaction: a value another process took in the same instant is skipped for the next
unit. The register keeps a value after its object is deleted, so a PUID is never issued
twice, not even to another object of the same kind.

A model gets a PUID with ``mapped_column(String(32), default=puid_default(SAMPLE), ...)``: the
default runs for ORM and Core inserts alike, so no creation path can forget it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Insert, String, insert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base

APP_PREFIX = "INXT"
SAMPLE, PROJECT, GROUP, ATTACHMENT = "SAM", "PRJ", "GRP", "ATT"
# An account's personal namespace (IRIDA Next's ``Namespaces::UserNamespace``).
USER_NAMESPACE = "USR"
KINDS = frozenset({SAMPLE, PROJECT, GROUP, ATTACHMENT, USER_NAMESPACE})

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
UNITS_PER_SECOND = 12_228
_FRACTION_DIGITS = 6
_PATTERN = re.compile(rf"{APP_PREFIX}_([A-Z]{{3}})_[A-Z2-7]{{10}}")

_last_issued: dict[str, tuple[str, int]] = {}  # kind -> (date part, last unit of that day)
_lock = threading.Lock()


class IssuedPuid(Base):
    """One row per PUID issued, kept when its object is deleted: its primary key is what
    makes a PUID unique across processes and kinds, and never issued again."""

    __tablename__ = "puid"

    value: Mapped[str] = mapped_column(String(32), primary_key=True)


def encode(number: int, length: int) -> str:
    """``number`` in ``length`` base32 characters, most significant first."""
    if number < 0 or number >= 32**length:
        raise ValueError(f"{number} does not fit in {length} base32 characters")
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(length)))


def decode(text: str) -> int:
    """The number a run of base32 characters stands for."""
    number = 0
    for char in text:
        number = number * 32 + ALPHABET.index(char)
    return number


def date_part(moment: datetime) -> str:
    """The four characters of a PUID that name the day of ``moment`` (UTC)."""
    return encode(moment.year - 2000, 2) + encode(moment.month, 1) + encode(moment.day, 1)


def unit_of_day(moment: datetime) -> int:
    """The time of day of ``moment`` in PUID units (1/12,228 s)."""
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return int((moment - midnight).total_seconds() * UNITS_PER_SECOND)


def format_puid(kind: str, day: str, unit: int) -> str:
    return f"{APP_PREFIX}_{kind}_{day}{encode(unit, _FRACTION_DIGITS)}"


def is_puid(text: object, kind: str | None = None) -> bool:
    """Whether ``text`` has a PUID's shape (of ``kind``, when given): GraphQL's ``isPuid``."""
    if not isinstance(text, str):
        return False
    match = _PATTERN.fullmatch(text)
    return match is not None and (kind is None or match.group(1) == kind)


def _next_units(kind: str, count: int, now: datetime | None) -> tuple[str, int]:
    """The day and the first of ``count`` units this process has not issued for ``kind``."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    day, unit = date_part(moment), unit_of_day(moment)
    with _lock:
        last = _last_issued.get(kind)
        if last is not None and last[0] == day and unit <= last[1]:
            unit = last[1] + 1
        _last_issued[kind] = (day, unit + count - 1)
    return day, unit


def issue_puids(connection: Connection, kind: str, count: int,
                now: datetime | None = None) -> list[str]:
    """``count`` new PUIDs of ``kind``, in creation order, entered in the register on
    ``connection`` (within its transaction: a rollback gives them back)."""
    if kind not in KINDS:
        raise ValueError(f"unknown PUID kind {kind!r}")
    issued: list[str] = []
    while len(issued) < count:
        wanted = count - len(issued)
        day, first = _next_units(kind, wanted, now)
        issued.extend(_register(connection,
                                [format_puid(kind, day, first + i) for i in range(wanted)]))
    return issued


def _register(connection: Connection, values: list[str]) -> list[str]:
    """Enter ``values`` in the register; the ones that were free, in order.

    ``ON CONFLICT DO NOTHING`` never aborts the transaction; on PostgreSQL it waits for a
    concurrent insert of the same value to commit or roll back."""
    dialect = connection.dialect.name
    statement: Insert
    if dialect == "postgresql":
        statement = pg_insert(IssuedPuid).on_conflict_do_nothing()
    elif dialect == "sqlite":
        statement = sqlite_insert(IssuedPuid).on_conflict_do_nothing()
    else:  # pragma: no cover - seqcore runs on SQLite and PostgreSQL
        statement = insert(IssuedPuid)
    rows = [{"value": value} for value in values]
    taken = set(connection.execute(statement.returning(IssuedPuid.value), rows).scalars())
    return [value for value in values if value in taken]


def puid_default(kind: str) -> Callable[[Any], str]:
    """A column default issuing a PUID of ``kind`` on the inserting statement's connection."""
    if kind not in KINDS:
        raise ValueError(f"unknown PUID kind {kind!r}")

    def issue(context: Any) -> str:
        return issue_puids(context.connection, kind, 1)[0]

    return issue
