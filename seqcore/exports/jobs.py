"""Every change to a data export after it was made, each a typed operation on the caller's
session (committed with it): the worker taking one, finishing or failing it, expiring it,
and a person deleting it.

State moves are conditional updates: an export is moved only from the state that was read,
so two workers never both build one, and an export deleted meanwhile is simply not there.
Stored bytes are removed only after the transaction that forgets them commits.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from seqcore.db import rowcount, utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import NotFound
from seqcore.governance.activity import note, operation
from seqcore.models.export import DataExport, ExportState

log = logging.getLogger(__name__)

S = ExportState

#: The storage directory of export bundles: derived data, not stored files (no
#: ``sequence_file`` row refers to them; backups leave them out, ``seqcore check`` too).
BUNDLE_DIRECTORY = "exports"


def bundle_path(export_id: int) -> str:
    """Where an export's bundle is kept, relative to the storage root."""
    return f"{BUNDLE_DIRECTORY}/{export_id}/seqcore-export-{export_id}.zip"


def waiting(db: Session, now: datetime) -> list[int]:
    """Exports to build: queued ones, and builds whose worker's lease ran out."""
    return list(db.scalars(select(DataExport.id).where(or_(
        DataExport.state == S.QUEUED.value,
        (DataExport.state == S.RUNNING.value)
        & or_(DataExport.lease_until.is_(None), DataExport.lease_until < now)))
        .order_by(DataExport.id)))


def take(db: Session, export_id: int, worker: str, lease: timedelta) -> bool:
    """Take an export to build (``RUNNING``, with a lease); false when another worker has
    it or it is gone."""
    now = utcnow()
    taken = db.execute(update(DataExport).where(
        DataExport.id == export_id,
        or_(DataExport.state == S.QUEUED.value,
            (DataExport.state == S.RUNNING.value)
            & or_(DataExport.lease_until.is_(None), DataExport.lease_until < now)))
        .values(state=S.RUNNING.value, worker=worker, lease_until=now + lease,
                attempts=DataExport.attempts + 1, modified=now)
        .execution_options(synchronize_session=False))
    return rowcount(taken) == 1


def renew(db: Session, export_id: int, worker: str, lease: timedelta) -> None:
    db.execute(update(DataExport).where(
        DataExport.id == export_id, DataExport.worker == worker,
        DataExport.state == S.RUNNING.value)
        .values(lease_until=utcnow() + lease).execution_options(synchronize_session=False))


def finished(db: Session, export_id: int, worker: str, path: str, size: int,
             manifest: list[dict[str, Any]], expire_hours: float) -> bool:
    """The bundle is at ``path``: the export is ``READY`` until ``expire_hours`` from now.
    False when the export was deleted (or taken over) meanwhile: the caller removes the
    bytes."""
    now = utcnow()
    done = db.execute(update(DataExport).where(
        DataExport.id == export_id, DataExport.worker == worker,
        DataExport.state == S.RUNNING.value)
        .values(state=S.READY.value, path=path, size=size, manifest=manifest,
                ready_at=now, expires_at=now + timedelta(hours=expire_hours),
                lease_until=None, modified=now, error=None)
        .execution_options(synchronize_session=False))
    return rowcount(done) == 1


def failed(db: Session, export_id: int, worker: str, reason: str) -> None:
    """The export cannot be built (a stored file is gone): ``ERROR`` with the reason."""
    now = utcnow()
    db.execute(update(DataExport).where(
        DataExport.id == export_id, DataExport.worker == worker,
        DataExport.state == S.RUNNING.value)
        .values(state=S.ERROR.value, error=reason, lease_until=None, modified=now)
        .execution_options(synchronize_session=False))


def interrupted(db: Session, export_id: int, worker: str, reason: str, max_attempts: int
                ) -> None:
    """A build failed for a reason that may pass (disk full, a fault of ours): back to
    ``QUEUED`` for a later round, or ``ERROR`` after ``max_attempts``."""
    export = db.get(DataExport, export_id)
    if export is None or export.worker != worker or export.state != S.RUNNING.value:
        return
    if export.attempts >= max_attempts:
        failed(db, export_id, worker, reason)
        return
    db.execute(update(DataExport).where(DataExport.id == export_id,
                                        DataExport.state == S.RUNNING.value)
               .values(state=S.QUEUED.value, lease_until=None, error=reason,
                       modified=utcnow()).execution_options(synchronize_session=False))


def expire(db: Session, storage: Any, manager: Any, now: datetime) -> int:
    """Ready exports past their expiry become ``EXPIRED``; their bytes are removed once
    this commits. Returns how many expired."""
    rows = db.execute(select(DataExport.id, DataExport.path).where(
        DataExport.state == S.READY.value, DataExport.expires_at <= now)).all()
    if not rows:
        return 0
    ids = [row.id for row in rows]
    db.execute(update(DataExport).where(DataExport.id.in_(ids),
                                        DataExport.state == S.READY.value)
               .values(state=S.EXPIRED.value, path=None, modified=now)
               .execution_options(synchronize_session=False))
    storage.remove_after_commit([row.path for row in rows if row.path], manager)
    for row in rows:
        log.info("data export %s expired; its bundle is purged", row.id)
    return len(rows)


@operation("export.delete")
def delete_export(db: Session, storage: Any, manager: Any, export: DataExport) -> None:
    """Delete an export, in any state: the row now, the bytes once this commits. One being
    built is cancelled: its worker finds it gone when done and removes what it wrote.

    The row is held and read again first: of concurrent deletes of one export, the first
    deletes it and leaves the one activity record; the others wait for it and then find it
    gone (:class:`~seqcore.errors.NotFound`, nothing written)."""
    lock_row(db, DataExport, export.id)
    row = db.execute(select(DataExport.path, DataExport.name, DataExport.state)
                     .where(DataExport.id == export.id)).first()
    if row is None:
        raise NotFound(f"The data export {export.id} was not found.")
    path = row.path
    note(db, projects=[export.project_id], on="export", id=export.id, action="deleted",
         values={"name": row.name, "state": row.state})
    db.execute(delete(DataExport).where(DataExport.id == export.id)
               .execution_options(synchronize_session=False))
    if path:
        storage.remove_after_commit([path], manager)


def delete_project_exports(db: Session, storage: Any, manager: Any, project_ids: list[int]
                           ) -> None:
    """A deleted project's exports go with it: rows now, bytes once this commits (a bundle
    still being written is removed by its worker, which finds the export gone)."""
    paths = [path for path in db.scalars(select(DataExport.path).where(
        DataExport.project_id.in_(project_ids))) if path]
    db.execute(delete(DataExport).where(DataExport.project_id.in_(project_ids))
               .execution_options(synchronize_session=False))
    if paths:
        storage.remove_after_commit(paths, manager)
