"""A synchronized project's sync state as every transport shows it, and "sync now"."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.imports import ImportRun
from seqcore.models.remote import ProjectSync, RemoteApi
from seqcore.sync.mirror import map_kind


def sync_of(db: Session, project_id: int) -> ProjectSync | None:
    return db.get(ProjectSync, project_id)


def is_running(row: ProjectSync) -> bool:
    return row.started is not None


def describe(db: Session, row: ProjectSync) -> dict[str, Any]:
    """The state: status (``scheduled``, ``updating``, ``synchronized``, ``error``,
    ``unauthorized``), its reason when it failed, last and next sync, whether one runs, the
    remote project and what the last sync copied."""
    api = db.get(RemoteApi, row.remote_api_id)
    last_run = db.scalar(select(ImportRun).where(
        ImportRun.remote_kind == map_kind(row.project_id)).order_by(ImportRun.id.desc())
        .limit(1))
    return {
        "status": row.status, "error": row.error, "running": is_running(row),
        "lastSync": _when(row.last_sync), "nextSync": _when(row.next_sync),
        "remoteURL": row.remote_url, "remoteHash": row.remote_hash,
        "remoteApi": {"identifier": str(row.remote_api_id),
                      "name": api.name if api is not None else None},
        "lastCopied": dict(last_run.counts or {}) if last_run is not None else {},
    }


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds") + "Z"


def sync_now(db: Session, row: ProjectSync) -> None:
    """Make the project due now (the next round of a worker takes it), whatever its
    frequency; a sync that runs is left to finish."""
    row.next_sync = utcnow()
    if row.started is None:
        row.status = "scheduled"
