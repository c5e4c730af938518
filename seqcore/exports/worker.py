"""The worker's part in data exports, one round at a time (``seqcore.worker`` runs it beside
processing, analyses and NCBI submissions).

Each round first purges the exports past ``seqcore.exports.expire_hours`` (``EXPIRED``,
their bundles removed), then builds one queued export (the oldest a worker can take): it
takes the export (``RUNNING``, under a lease renewed while it works), writes the bundle into
storage (``exports/<id>/``, as a ``.part`` file renamed when whole) from the export's
selection, and marks it ``READY`` with its size, manifest and expiry. An export deleted
while it was built has its bundle removed; one whose stored files are gone ends in
``ERROR`` naming them; a fault that may pass (the disk full, the worker stopped) sends it
back to the queue, up to ``seqcore.exports.max_attempts`` rounds.

The line list is read for the export's requester (:func:`seqcore.exports.contents.
export_metadata_rows`), whose account and role are those at build time.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from seqcore.db import utcnow
from seqcore.exports import jobs
from seqcore.exports.bundle import Bundle, Source
from seqcore.exports.contents import (
    StoredEntry,
    analysis_entries,
    export_metadata_rows,
    missing,
    sample_entries,
    write_export_linelist,
)
from seqcore.exports.jobs import bundle_path
from seqcore.models.export import DataExport
from seqcore.models.project import Project
from seqcore.models.user import User
from seqcore.notifications.events import export_ready
from seqcore.observability import requestid, tracing
from seqcore.parsing.timestamps import epoch_ms
from seqcore.qc.processing import LeasedWorker, heartbeat
from seqcore.security.fieldaccess import Caller

log = logging.getLogger(__name__)


class MissingFiles(Exception):
    """Stored files of the selection are gone: the export cannot be built."""


class ExportWorker(LeasedWorker):
    def run_once(self) -> int:
        """Purge what expired, then build one waiting export (one per round, so uploads and
        analyses are not held up behind a queue of large exports: the loop comes straight
        back while there is work); how many exports it worked on."""
        with self.session() as (db, manager):
            busy = jobs.expire(db, self.storage, manager, utcnow())
        with self.session() as (db, _):
            waiting = jobs.waiting(db, utcnow())
        for export_id in waiting:
            with self.session() as (db, _):
                taken = jobs.take(db, export_id, self.name, self.lease)
            if taken:
                self.build(export_id)
                return busy + 1
        return busy

    def _heartbeat(self, export_id: int) -> Any:
        def renew() -> None:
            with self.session() as (db, _):
                jobs.renew(db, export_id, self.name, self.lease)

        return heartbeat(self.lease, renew, f"data export {export_id}")

    def build(self, export_id: int) -> None:
        with self.session() as (db, _):
            export = db.get(DataExport, export_id)
            origin = export.request_id if export is not None else None
            parent = export.trace_context if export is not None else None
        attributes = {"seqcore.data_export.id": export_id, "seqcore.worker": self.name}
        with (requestid.bound(origin), tracing.continued(parent, "export", attributes),
              self._heartbeat(export_id)):
            relative = bundle_path(export_id)
            # In a local directory the bundle is written beside its place and renamed into
            # it; for an object store, in the scratch directory, then uploaded.
            final = (self.storage.path(relative) if self.storage.is_local else
                     self.storage.root / "tmp" / f"export-{export_id}-{os.getpid()}.zip")
            partial = final.with_name(final.name + ".part")
            try:
                size, manifest = self._write(export_id, partial)
                if self.storage.is_local:
                    os.replace(partial, final)
                else:
                    try:
                        self.storage.backend.put_file(relative, partial)
                    finally:
                        partial.unlink(missing_ok=True)
            except MissingFiles as err:
                partial.unlink(missing_ok=True)
                log.error("data export %s cannot be built: %s", export_id, err)
                with self.session() as (db, _):
                    jobs.failed(db, export_id, self.name, str(err))
                return
            except Exception as err:
                partial.unlink(missing_ok=True)
                log.exception("data export %s: the build failed", export_id)
                with self.session() as (db, _):
                    jobs.interrupted(db, export_id, self.name, f"{type(err).__name__}: {err}",
                                     int(self.settings["seqcore.exports.max_attempts"]))
                return
            with self.session() as (db, _):
                done = jobs.finished(db, export_id, self.name, relative, size, manifest,
                                     float(self.settings["seqcore.exports.expire_hours"]))
                if done:  # its requester is told in the same transaction
                    export_ready(db, self.settings, db.get_one(DataExport, export_id))
            if not done:  # deleted (or taken over) meanwhile: what was written goes
                log.info("data export %s was deleted while it was built", export_id)
                self.storage.remove_now([relative])
            else:
                log.info("data export %s ready: %d bytes, %d entries", export_id, size,
                         len(manifest))

    def _write(self, export_id: int, target: Path) -> tuple[int, list[dict[str, Any]]]:
        """Write the bundle to ``target``; its size and manifest entries."""
        target.parent.mkdir(parents=True, exist_ok=True)
        with self.session() as (db, _):
            export = db.get(DataExport, export_id)
            if export is None:
                raise MissingFiles(f"data export {export_id} is gone")
            selection = dict(export.selection)
            project = db.get_one(Project, export.project_id)
            user = db.get(User, export.requester_id) if export.requester_id else None
            requester = Caller(user.id, user.system_role) if user else None
            top = f"seqcore-export-{export_id}"
            created = export.created
            samples = list(selection.get("samples") or [])
            stored: list[StoredEntry] = [
                *sample_entries(db, self.registry, samples, selection.get("fileKinds") or []),
                *analysis_entries(db, selection.get("analyses") or [],
                                  selection.get("analysisOutputs"))]
            gone = missing(self.storage, stored)
            if gone:
                raise MissingFiles("stored files are missing: " + ", ".join(gone[:20]))
            about = {"export": export_id, "project": project.puid, "projectId": project.id,
                     "name": export.name, "created": epoch_ms(created)}
            # Closed (and so removed) by the ``with`` below, once the session is done.
            linelist = tempfile.TemporaryFile("w+b", dir=target.parent)  # noqa: SIM115
            header, rows = export_metadata_rows(db, requester, project, samples,
                                                selection.get("metadataFields"))
            write_export_linelist(linelist, header, rows)
        # The database is left alone while the bytes are copied.
        with linelist:
            linelist_size = linelist.tell()
            linelist.seek(0)
            with open(target, "wb") as out, Bundle(out, created) as bundle:
                for entry in stored:
                    bundle.add(Source(f"{top}/{entry.path}", entry.size,
                                      _opener(self.storage, entry.storage_path)))
                bundle.add(Source(f"{top}/linelist.csv", linelist_size,
                                  _Unclosing.opener(linelist)))
                manifest = [written.as_json() for written in bundle.written]
                bundle.add_bytes(f"{top}/manifest.json",
                                 json.dumps({**about, "entries": manifest}, indent=1).encode())
        return target.stat().st_size, manifest


def _opener(storage: Any, relative: str) -> Any:
    """Opens a stored file when the bundle reaches it (a file, or the object streamed)."""
    return lambda: storage.open(relative)


class _Unclosing:
    """A file object the bundle reads and "closes" without closing (the temporary line
    list is closed, and removed, by its own ``with``)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    @classmethod
    def opener(cls, handle: Any) -> Any:
        return lambda: cls(handle)

    def read(self, size: int) -> bytes:
        return self.handle.read(size)  # type: ignore[no-any-return]

    def __enter__(self) -> _Unclosing:
        return self

    def __exit__(self, *exc: object) -> None:
        pass
