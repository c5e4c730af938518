"""Removing memberships that expired (IRIDA Next's cleanup of expired members).

A membership stops granting access at its ``expires_at`` by itself: every access rule reads
only memberships in force (:class:`seqcore.models.expiry.Expiring`). Until it is removed,
an expired membership stays listed with its expiry (REST, GraphQL ``Member.expiresAt``, the
web pages), so owners see who just lost access. The worker's round
(:class:`MembershipExpiryWorker`, part of ``seqcore worker``) then removes each one, in its
own transaction, leaving one ``member.expire`` activity record, as the service.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Forbidden
from seqcore.governance.activity import operation
from seqcore.models.group import Group, GroupMember
from seqcore.models.project import Project, ProjectMember


def check_own_expiry(actor_id: int | None, user_id: int, current: datetime | None,
                     wanted: datetime | None) -> None:
    """A member whose membership expires may bring its end closer but not push it back or
    remove it: the expiry was set by someone else (another owner or maintainer, an
    administrator), and lifting it oneself would void it. ``actor_id`` ``None`` is an
    administrator, who may."""
    if actor_id is None or actor_id != user_id or current is None:
        return
    if wanted is None or wanted > current:
        raise Forbidden("Your membership's expiry can be brought closer but not put off or "
                        "removed by yourself: ask another owner or maintainer.")

#: The membership tables, in the order they are swept.
MEMBERSHIPS: tuple[type[ProjectMember] | type[GroupMember], ...] = (ProjectMember, GroupMember)
#: Seconds between two sweeps of the worker (expiry itself needs no sweep to take effect).
SWEEP_SECONDS = 60.0


def expired(db: Session, now: datetime, limit: int = 100
            ) -> list[tuple[type[ProjectMember] | type[GroupMember], int]]:
    """Up to ``limit`` memberships of each kind whose expiry is ``now`` or earlier."""
    found: list[tuple[type[ProjectMember] | type[GroupMember], int]] = []
    for model in MEMBERSHIPS:
        found.extend((model, member_id) for member_id in db.scalars(
            select(model.id).where(model.expires_at <= now)
            .order_by(model.expires_at, model.id).limit(limit)))
    return found


@operation("member.expire")
def remove_expired(db: Session, member: ProjectMember | GroupMember) -> None:
    """Remove one membership that expired."""
    db.delete(member)
    db.flush()


class MembershipExpiryWorker:
    """The worker's round for memberships: remove those that expired, one transaction each
    (at most once a minute, or whenever ``now`` is given)."""

    def __init__(self, registry: Any) -> None:
        from seqcore.services import ISessionFactory, registry_service

        self.session_factory = registry_service(registry, ISessionFactory)
        self._next_sweep = 0.0

    def run_once(self, now: datetime | None = None) -> int:
        import transaction

        from seqcore.db import session_for
        from seqcore.governance.activity import SERVICE, acting

        if now is None:
            if time.monotonic() < self._next_sweep:
                return 0
            self._next_sweep = time.monotonic() + SWEEP_SECONDS
        moment = now or utcnow()
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            found = expired(session_for(self.session_factory, manager), moment)
        removed = 0
        for model, member_id in found:
            manager = transaction.TransactionManager(explicit=True)
            with manager:
                db = session_for(self.session_factory, manager)
                found_row = cast(ProjectMember | GroupMember | None, db.get(model, member_id))
                if found_row is None:
                    continue
                # The project's (or group's) lock first, as every membership change takes it,
                # so a change under way finishes (or waits) instead of updating a row this
                # deletes; then read the row again under it.
                if isinstance(found_row, ProjectMember):
                    lock_row(db, Project, found_row.project_id)
                else:
                    lock_row(db, Group, found_row.group_id)
                member = cast(ProjectMember | GroupMember | None, db.scalar(
                    select(model).where(model.id == member_id)
                    .execution_options(populate_existing=True)))
                # Gone meanwhile, or given a later expiry (or none) since it was found.
                if member is None or member.expires_at is None or member.expires_at > moment:
                    continue
                with acting(db, SERVICE):
                    remove_expired(db, member)
                removed += 1
        return removed
