"""One import, from reading the other install to the last commit: what ``seqcore import``
runs, given a prepared request of this install's application."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from seqcore.imports.copying import Copier, Outcome, Progress
from seqcore.imports.idmap import IdMap
from seqcore.imports.plan import Plan
from seqcore.imports.remote import Remote
from seqcore.models.user import User


class UnknownOwner(Exception):
    """The account named to own what is imported does not exist here."""


def read(request: Any, remote: Remote, remote_kind: str, member_map: Mapping[str, str],
         project_ids: list[str] | None) -> Plan:
    """What the import would copy and every problem: reads the other install and this
    one's database, writes nothing."""
    idmap = IdMap(remote.base, remote_kind)
    request.tm.begin()
    try:
        if remote_kind == "irida-next":
            from seqcore.imports.iridanext import read_plan as read_next

            return read_next(remote, request.db, request.registry, idmap, member_map,
                             project_ids)
        from seqcore.imports.irida import read_plan

        return read_plan(remote, request.db, request.registry, idmap, member_map, project_ids)
    finally:
        request.tm.abort()


def copy(request: Any, remote: Remote, plan: Plan, owner_name: str,
         progress: Progress | None = None) -> Outcome:
    """Copy what ``plan`` holds, as ``owner_name`` (:class:`UnknownOwner` if there is no
    such account)."""
    request.tm.begin()
    try:
        owner = request.db.scalar(select(User).where(User.username == owner_name))
        if owner is None:
            raise UnknownOwner(owner_name)
        request.db.expunge(owner)
    finally:
        request.tm.abort()
    copier = Copier(request, remote, owner, IdMap(plan.remote, plan.remote_kind), progress)
    return copier.run(plan)
