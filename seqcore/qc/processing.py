"""The processing chain of uploaded sequence data, run by workers, never in a request.

An object moves ``UNPROCESSED`` → ``QUEUED`` (claimed by a worker, ``fileProcessor`` names
it) → ``PROCESSING`` → ``FINISHED`` or ``ERROR`` (with the reason). Objects of a sequencing
run wait until the run is ``COMPLETE``. Steps, in order, for each file: checksum (when the
upload did not already compute it), gzip decompression (when the deployment enables it and
the kind allows it; the compressed original is kept), QC through the QC engine; then the
``sequencing_object_processed`` hook (automated analyses).

A claim is a lease that the worker renews while it works. A worker that dies leaves the lease
to run out; the next worker to look puts the object back in the queue, or marks it ``ERROR``
once it has been interrupted ``seqcore.processing.max_attempts`` times.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import transaction
from isal import igzip
from pyramid.config import Configurator
from pyramid.registry import Registry
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from seqcore.db import rowcount, session_for, utcnow
from seqcore.models.sequencing import (
    ProcessingState,
    QCRecord,
    SequenceFile,
    SequencingObject,
    SequencingRun,
    UploadStatus,
)
from seqcore.observability import instruments, requestid, tracing
from seqcore.qc import QCError
from seqcore.services import IQCEngine, ISessionFactory, IStorage, registry_service

log = logging.getLogger(__name__)

ACTIVE = (ProcessingState.QUEUED.value, ProcessingState.PROCESSING.value)


def worker_name() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


@contextmanager
def heartbeat(lease: timedelta, renew: Callable[[], None], what: str) -> Iterator[None]:
    """While the block runs, ``renew()`` a lease of length ``lease`` three times per lease
    (in a thread), so other workers know the work is alive; a failed renewal is logged."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease.total_seconds() / 3):
            try:
                renew()
            except Exception:
                log.exception("could not renew the lease on %s", what)

    thread = threading.Thread(target=beat, name=f"lease-{what}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class LeasedWorker:
    """What every worker that takes work under a lease starts from (processing, analyses,
    NCBI submissions, data exports): its name, the lease length all of them share
    (``seqcore.processing.lease_seconds``, so one setting says how long a stopped worker's
    work waits), and sessions of their own, outside any request."""

    def __init__(self, registry: Registry, name: str | None = None) -> None:
        self.registry = registry
        self.settings = registry.settings
        self.session_factory = registry_service(registry, ISessionFactory)
        self.storage = registry_service(registry, IStorage)
        self.name = name or worker_name()
        self.lease = timedelta(seconds=int(self.settings["seqcore.processing.lease_seconds"]))

    @contextmanager
    def session(self) -> Iterator[tuple[Session, transaction.TransactionManager]]:
        """A session in a transaction of its own, committed when the block ends (rolled
        back if it raises): each step of a worker's round is its own commit, so what one
        step recorded (a claim, a renewed lease) stands whatever the next one does."""
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            yield session_for(self.session_factory, manager), manager


class Worker(LeasedWorker):
    """Claims and processes sequencing objects; any number may run against one database."""

    def __init__(self, registry: Registry, name: str | None = None) -> None:
        super().__init__(registry, name)
        self.max_attempts = int(self.settings["seqcore.processing.max_attempts"])

    # -- queue ------------------------------------------------------------------------------

    def recover(self) -> int:
        """Requeue (or fail) objects whose worker stopped renewing its lease."""
        now = utcnow()
        recovered = 0
        with self.session() as (db, _):
            stale = db.scalars(select(SequencingObject).where(
                SequencingObject.processing_state.in_(ACTIVE),
                or_(SequencingObject.lease_until.is_(None), SequencingObject.lease_until < now)))
            for obj in stale:
                obj.attempts += 1
                if obj.attempts >= self.max_attempts:
                    obj.processing_state = ProcessingState.ERROR.value
                    obj.processing_error = (
                        f"Processing was interrupted {obj.attempts} times (the worker "
                        f"{obj.file_processor} stopped); giving up.")
                else:
                    obj.processing_state = ProcessingState.UNPROCESSED.value
                obj.lease_until = None
                obj.modified = now
                recovered += 1
        if recovered:
            log.warning("recovered %d object(s) left by stopped workers", recovered)
        return recovered

    def claim(self, limit: int = 1) -> list[int]:
        """Take up to ``limit`` waiting objects; each claim is a conditional update, so two
        workers never take the same object."""
        now = utcnow()
        claimed = []
        with self.session() as (db, _):
            candidates = db.scalars(
                select(SequencingObject.id)
                .outerjoin(SequencingRun, SequencingRun.id == SequencingObject.run_id)
                .where(SequencingObject.processing_state == ProcessingState.UNPROCESSED.value,
                       or_(SequencingObject.run_id.is_(None),
                           SequencingRun.upload_status == UploadStatus.COMPLETE.value))
                .order_by(SequencingObject.id).limit(limit)).all()
            for object_id in candidates:
                result = db.execute(
                    update(SequencingObject)
                    .where(SequencingObject.id == object_id,
                           SequencingObject.processing_state
                           == ProcessingState.UNPROCESSED.value)
                    .values(processing_state=ProcessingState.QUEUED.value,
                            file_processor=self.name, lease_until=now + self.lease,
                            modified=now))
                if rowcount(result) == 1:
                    claimed.append(object_id)
        return claimed

    def run_once(self, limit: int = 4) -> int:
        """Recover, claim and process what is waiting; returns how many were processed."""
        self.recover()
        done = 0
        for object_id in self.claim(limit):
            self.process(object_id)
            done += 1
        return done

    def run_until_idle(self) -> int:
        total = 0
        while count := self.run_once():
            total += count
        return total

    def run_forever(self, stop: threading.Event, interval: float = 2.0) -> None:
        log.info("worker %s started", self.name)
        while not stop.is_set():
            try:
                busy = self.run_once()
            except Exception:
                log.exception("worker %s: processing round failed", self.name)
                busy = 0
            instruments.heartbeat(self.name)
            if not busy:
                stop.wait(interval)

    # -- one object -------------------------------------------------------------------------

    def _kind(self, name: str) -> Any:
        for kind in self.registry.get("seqcore.file_kinds", {}).values():
            if kind.name == name:
                return kind
        return None

    def _renew(self, object_id: int) -> None:
        with self.session() as (db, _):
            db.execute(update(SequencingObject).where(
                SequencingObject.id == object_id, SequencingObject.file_processor == self.name)
                .values(lease_until=utcnow() + self.lease))

    def _heartbeat(self, object_id: int) -> Any:
        return heartbeat(self.lease, lambda: self._renew(object_id), f"object {object_id}")

    def process(self, object_id: int) -> None:
        with self.session() as (db, _):
            obj = db.get(SequencingObject, object_id)
            if obj is None or obj.file_processor != self.name:
                return
            obj.processing_state = ProcessingState.PROCESSING.value
            obj.lease_until = utcnow() + self.lease
            kind = self._kind(obj.kind)
            files = [(f.id, f.path, f.upload_sha256, f.file_name) for f in obj.files]
            origin, parent = obj.request_id, obj.trace_context
        # Everything logged while processing carries the id of the request that uploaded it,
        # and its span continues that request's trace.
        with requestid.bound(origin), tracing.continued(parent, "processing", {
                "seqcore.sequencing_object.id": object_id, "seqcore.worker": self.name,
                "seqcore.files": len(files)}) as span:
            started = time.monotonic()
            # The id is in the text too, for log formats that do not print the field.
            log.info("worker %s: processing object %s (%d file(s)) request_id=%s", self.name,
                     object_id, len(files), origin or "-")
            outcome = self._process(object_id, files, kind)
            instruments.PROCESSING_DURATION.labels(outcome=outcome).observe(
                time.monotonic() - started)
            tracing.set_attributes(span, {"seqcore.outcome": outcome})
            log.info("worker %s: object %s %s request_id=%s", self.name, object_id, outcome,
                     origin or "-")

    def _process(self, object_id: int, files: list[tuple[int, str, str | None, str]],
                 kind: Any) -> str:
        try:
            with self._heartbeat(object_id):
                reports = [(name, self._process_file(file_id, path, sha, name, kind))
                           for file_id, path, sha, name in files]
            _check_reports(reports)
        except QCError as err:
            self._finish(object_id, ProcessingState.ERROR, f"QC failed: {err.reason}")
            return "error"
        except Exception as err:  # a failing step marks the object, never kills the worker
            log.exception("processing object %s failed", object_id)
            self._finish(object_id, ProcessingState.ERROR, f"{type(err).__name__}: {err}")
            return "error"
        self._finish(object_id, ProcessingState.FINISHED, None)
        return "finished"

    def _process_file(self, file_id: int, path: str, sha: str | None, name: str,
                      kind: Any) -> Any:
        """Hash, decompress and QC one file; its QC report (``None``: the kind has no QC).

        The file is read where it is in a local directory, from a staged copy in an object
        store (:meth:`~seqcore.storage.service.Storage.local_copy`)."""
        with self.storage.local_copy(path) as full:
            if sha is None:
                digest = _sha256(full)
                with self.session() as (db, _):
                    db.get_one(SequenceFile, file_id).upload_sha256 = digest
            if not (kind is not None and kind.decompress and self.settings[
                    "seqcore.processing.decompress"] and _is_gzip(full)):
                return self._qc(file_id, full, kind)
            path = self._decompress(file_id, full, name)
        with self.storage.local_copy(path) as full:
            return self._qc(file_id, full, kind)

    def _qc(self, file_id: int, full: Path, kind: Any) -> Any:
        if kind is not None and kind.qc:
            engine = registry_service(self.registry, IQCEngine)
            with instruments.QC_DURATION.time(), tracing.span("qc", {
                    "seqcore.sequence_file.id": file_id,
                    "seqcore.qc.engine": getattr(engine, "label", type(engine).__name__)}):
                report = engine.run(full)
            with self.session() as (db, _):
                existing = db.scalar(select(QCRecord).where(QCRecord.file_id == file_id))
                if existing is not None:
                    db.delete(existing)
                    db.flush()
                db.add(QCRecord(file_id=file_id, report=report.to_dict(),
                                engine=getattr(engine, "label", type(engine).__name__)))
            return report
        return None

    def _decompress(self, file_id: int, full: Path, name: str) -> str:
        """Write the decompressed file as a new revision (the compressed original stays);
        its storage path."""
        new_name = name[:-3] if name.endswith(".gz") else name
        tmp = self.storage.root / "tmp" / f"decompress-{file_id}-{os.getpid()}"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            with igzip.open(full, "rb") as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            with self.session() as (db, manager):
                relative, _, size = self.storage.store_file(tmp, new_name, manager)
                record = db.get_one(SequenceFile, file_id)
                record.original_path = record.path
                record.path = relative
                record.file_name = new_name
                record.size = size
                record.revision += 1
                record.modified = utcnow()
        finally:
            tmp.unlink(missing_ok=True)
        return cast("str", relative)

    def _finish(self, object_id: int, state: ProcessingState, error: str | None) -> None:
        with self.session() as (db, _):
            obj = db.get(SequencingObject, object_id)
            if obj is None:
                return
            obj.processing_state = state.value
            obj.processing_error = error
            obj.lease_until = None
            obj.modified = utcnow()
            if state is ProcessingState.FINISHED:
                try:
                    self.registry.pm.hook.sequencing_object_processed(
                        sequencing_object=obj, kind=obj.kind, registry=self.registry)
                except Exception:
                    log.exception("a sequencing_object_processed hook failed for object %s",
                                  object_id)


def _check_reports(reports: list[tuple[str, Any]]) -> None:
    """What QC reads but does not refuse, and a sequencing object must not hold:
    :class:`QCError` (the object becomes ``ERROR`` with the reason) for a record without
    bases, and for the files of one object (a pair) holding different numbers of reads,
    which no paired-end tool can use."""
    measured = [(name, report) for name, report in reports if report is not None]
    for name, report in measured:
        if getattr(report, "min_length", 1) == 0:
            raise QCError(f"{name} holds an empty record (a read without bases)")
    counts = {name: report.total_sequences for name, report in measured}
    if len(set(counts.values())) > 1:
        raise QCError("the files of this pair hold different numbers of reads ("
                      + ", ".join(f"{name}: {count}" for name, count in counts.items())
                      + ")")


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def includeme(config: Configurator) -> None:
    config.include("seqcore.qc.registration")
