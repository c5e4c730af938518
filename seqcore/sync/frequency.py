"""How often a synchronized project is refreshed: the project's ``syncFrequency`` (the
values :class:`seqcore.parsing.schemas.ProjectSchema` takes) as a time between syncs."""

from __future__ import annotations

from datetime import datetime, timedelta

#: ``NEVER``: only when a user asks ("Sync now").
INTERVALS: dict[str, timedelta | None] = {
    "NEVER": None,
    "DAILY": timedelta(days=1),
    "WEEKLY": timedelta(days=7),
    "SEMIMONTHLY": timedelta(days=15),
    "MONTHLY": timedelta(days=30),
    "QUARTERLY": timedelta(days=91),
}
DEFAULT = "WEEKLY"


def next_sync(frequency: str | None, after: datetime) -> datetime | None:
    """When the next sync is due after one at ``after`` (``None``: not until asked)."""
    interval = INTERVALS.get(frequency or DEFAULT, INTERVALS[DEFAULT])
    return None if interval is None else after + interval
