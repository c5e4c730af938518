"""A membership's expiry as the transports receive it, and the rule that it lies ahead.

IRIDA Next takes a member's ``expires_at`` as a date; seqcore stores an instant (UTC) so that
access ends at a known moment on every database. Accepted forms, the same over REST and the
web pages (GraphQL has no member mutation):

* ``YYYY-MM-DD``: the membership ends at 00:00 UTC that day (as in IRIDA Next, where a member
  whose ``expires_at`` is today no longer has access);
* an ISO 8601 date-time with its offset (``2027-01-31T17:00:00Z``, ``...+02:00``);
* integer epoch milliseconds (REST's form for every timestamp);
* ``null``: the membership does not expire.

An expiry that is not in the future is refused (:func:`check_ahead`): setting one would end
the access at once, which removing the member does plainly.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from typing import Any

from seqcore.errors.domain import Invalid

FORMS = ("a date (YYYY-MM-DD), an ISO 8601 date-time with its offset, or epoch milliseconds")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_expiry(value: Any, field: str = "expiresAt") -> datetime | None:
    """The UTC instant ``value`` names (see the module), ``None`` for ``None`` or an empty
    string; :class:`Invalid` on ``field`` for anything else."""
    if value is None or value == "":
        return None
    problem = Invalid.field(field, f"The expiry must be {FORMS}.")
    if isinstance(value, bool):
        raise problem
    if isinstance(value, int):
        try:
            return datetime.fromtimestamp(value / 1000, UTC).replace(microsecond=0)
        except (OverflowError, OSError, ValueError):
            raise problem from None
    if not isinstance(value, str):
        raise problem
    text = value.strip()
    try:
        if _DATE.fullmatch(text):
            return datetime.combine(date.fromisoformat(text), time(), UTC)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise problem from None
    if moment.tzinfo is None:
        raise Invalid.field(field, "The expiry's date-time must carry its offset (Z for "
                                   "UTC), or be a date.")
    try:  # 9999-12-31T23:59-05:00 is past the last instant a datetime holds
        return moment.astimezone(UTC).replace(microsecond=0)
    except (OverflowError, ValueError):
        raise problem from None


def check_ahead(expires_at: datetime | None, now: datetime, field: str = "expiresAt") -> None:
    """:class:`Invalid` on ``field`` unless ``expires_at`` is ``None`` or after ``now``."""
    if expires_at is not None and expires_at <= now:
        raise Invalid.field(field, "The expiry must be in the future: a membership that "
                                   "ends now or earlier would grant nothing (remove the "
                                   "member instead).")
