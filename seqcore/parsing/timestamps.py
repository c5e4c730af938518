"""Timestamps as seqcore records and serves them: integer epoch milliseconds.

Submission histories are stored in this form by the domain (launching, the worker) and every
transport serves timestamps the same way, so the conversion lives below all of them.
"""

from __future__ import annotations

from datetime import datetime
from typing import overload


@overload
def epoch_ms(value: datetime) -> int: ...
@overload
def epoch_ms(value: None) -> None: ...
@overload
def epoch_ms(value: datetime | None) -> int | None: ...


def epoch_ms(value: datetime | None) -> int | None:
    """Integer epoch milliseconds (whole seconds, so always ending in 000), or ``None``."""
    if value is None:
        return None
    return int(value.timestamp()) * 1000  # C-level and exact for whole seconds
