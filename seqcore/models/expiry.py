"""Memberships that end at a set instant (IRIDA Next's ``expires_at`` on members).

A project or group membership may carry ``expires_at`` (a UTC timestamp; ``NULL``: it never
expires). From that instant on the membership grants nothing: :attr:`Expiring.active` is the
condition every access rule joins memberships with (:mod:`seqcore.security.access`,
:mod:`seqcore.security.inheritance`, :mod:`seqcore.security.fieldaccess`), evaluated against
the database's clock (:class:`seqcore.db.clock.utc_now`) so that statements built once stay
true. The row itself stays, listed with its expiry, until the worker removes it
(:mod:`seqcore.projects.expiry`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, or_
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import utcnow
from seqcore.db.clock import utc_now


class Expiring:
    """Mixin of the membership tables: the optional expiry and the condition "still in
    force"."""

    expires_at: Mapped[datetime | None] = mapped_column(default=None)

    @hybrid_property
    def active(self) -> bool:
        """Whether the membership grants access now (no expiry, or one still ahead)."""
        return self.expires_at is None or self.expires_at > utcnow()

    @active.inplace.expression
    @classmethod
    def _active_expression(cls) -> ColumnElement[bool]:
        return or_(cls.expires_at.is_(None), cls.expires_at > utc_now())
