"""Receiving uploads: files already streamed into storage become stored sequencing data.

A transport reads its wire format (REST: a streaming ``multipart/form-data`` body, see
:mod:`seqcore.rest.multipart`) into storage writers, checking each file's bytes with the file
kind's :class:`ContentCheck` as they arrive. What to keep is decided here: the sequencing
run the files belong to, an identical upload already stored (answered instead of a second
copy), and the rows that record the object and its files. Problems are domain errors
(:class:`~seqcore.errors.domain.Invalid`); a file system that refuses a file raises
:class:`~seqcore.storage.service.StorageError`. The received files stay temporary until kept, and a
kept file goes again when the transaction aborts, so a failed upload leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Invalid
from seqcore.framework.contrib import FileKind
from seqcore.governance.activity import operation
from seqcore.models.sample import Sample
from seqcore.models.sequencing import (
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
    SequencingRun,
    UploadStatus,
)
from seqcore.observability import instruments
from seqcore.storage.service import ObjectWriter, Writer


class ContentCheck(Protocol):
    """Checks a file's bytes as they stream past; raises :class:`BadContent`."""

    def feed(self, data: bytes | memoryview) -> None: ...

    def finish(self) -> None: ...


class BadContent(Exception):
    """The file's content is not what its kind accepts; the message says why."""


@dataclass(frozen=True)
class ReceivedFile:
    """A file streamed into storage but not kept yet: the name it was sent under and the
    writer holding its bytes (size and SHA-256 known)."""

    file_name: str
    writer: Writer


def keep(received: ReceivedFile, tm: Any) -> str:
    """Move a received file to its place in storage; it is removed again if ``tm``'s
    transaction aborts. :class:`~seqcore.storage.service.StorageError` if the file system refuses.
    Counted in ``seqcore_upload_bytes`` once the transaction commits."""
    path = received.writer.place(tm)
    instruments.after_commit(tm, instruments.count_upload, received.writer.size)
    return path


def run_for_upload(db: Session, run_ids: Sequence[int | None],
                   may_see: Callable[[SequencingRun], bool]) -> SequencingRun | None:
    """The sequencing run the files of one upload name (``None``: no run), which must be
    open for uploads.

    Runs are read by administrators and changed by the account that created them, and only
    they add files to a run: to anyone else (``may_see`` false) a run, open or closed, is no
    different from a missing one, so neither its existence nor its state is revealed, and
    nobody can slip data into someone else's run.
    """
    distinct = set(run_ids)
    if len(distinct) > 1:
        raise Invalid(message="Cannot upload a pair of files from different sequencing runs.")
    run_id = distinct.pop() if distinct else None
    if run_id is None:
        return None
    run = db.get(SequencingRun, run_id)
    missing = Invalid(message=f"The sequencing run {run_id} does not exist.")
    if run is None or not may_see(run):
        raise missing
    if run.upload_status != UploadStatus.UPLOADING:
        raise Invalid(message="The sequencing run must be in the UPLOADING state to upload "
                              "data.")
    return run


def lock_sample(db: Session, sample_id: int) -> None:
    """Hold the sample's row until the transaction ends.

    An update that changes nothing takes the row lock on PostgreSQL and the write lock on
    SQLite; either makes a second upload into the sample wait here until the first has
    committed or rolled back, and then see what it stored.
    """
    db.execute(update(Sample).where(Sample.id == sample_id).values(name=Sample.name)
               .execution_options(synchronize_session=False))


def same_upload(db: Session, kind: FileKind, sample_id: int,
                files: Sequence[ReceivedFile]) -> SequencingObject | None:
    """An object of ``kind`` in the sample with exactly these files (names and content).

    One statement reads the file names and hashes of only the objects holding the first of
    these files, not every object of the sample with its files: a sample's objects grow
    with each upload, and every upload asks."""
    wanted = [(f.file_name, f.writer.sha256) for f in files]
    if not wanted:
        return None
    first_name, first_sha256 = wanted[0]
    candidates = (
        select(SequencingObjectFile.object_id)
        .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
        .join(SequencingObject, SequencingObject.id == SequencingObjectFile.object_id)
        .where(SequencingObject.sample_id == sample_id,
               SequencingObject.kind == kind.name,
               SequenceFile.file_name == first_name,
               SequenceFile.upload_sha256 == first_sha256))
    rows = db.execute(
        select(SequencingObjectFile.object_id, SequenceFile.file_name,
               SequenceFile.upload_sha256)
        .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
        .where(SequencingObjectFile.object_id.in_(candidates))
        .order_by(SequencingObjectFile.object_id, SequencingObjectFile.position))
    found: dict[int, list[tuple[str, str | None]]] = {}
    for object_id, file_name, sha256 in rows:
        found.setdefault(object_id, []).append((file_name, sha256))
    for object_id, stored in found.items():
        if stored == wanted:
            return db.get(SequencingObject, object_id)
    return None


@operation("file.upload")
def receive_upload(request: Any, kind: FileKind, sample_id: int,
                   files: Sequence[ReceivedFile], properties: Sequence[Mapping[str, str]],
                   run: SequencingRun | None, received: Any = None
                   ) -> tuple[SequencingObject, list[SequenceFile], bool]:
    """Store the files of one upload of ``kind`` into a sample, as one sequencing object.

    ``files`` are in the kind's order, with one ``properties`` mapping each (the extra keys
    the uploader sent). The same files sent again (a client retrying) are not stored twice:
    the object already stored is answered, and the third value is ``False`` so the caller
    can discard what it received. ``received`` is handed to the kind's ``prepare`` (the
    transport's parsed upload). ``request`` gives the database, storage and transaction.
    """
    db: Session = request.db
    # Uploads into one sample take turns from here to commit, so two identical uploads
    # arriving together cannot both find nothing and both be stored.
    lock_sample(db, sample_id)
    existing = same_upload(db, kind, sample_id, files)
    if existing is not None:
        return existing, list(existing.files), False
    now = utcnow()
    stored = [SequenceFile(path=keep(received_file, request.tm),
                           file_name=received_file.file_name, size=received_file.writer.size,
                           upload_sha256=received_file.writer.sha256,
                           properties=dict(extra), created=now)
              for received_file, extra in zip(files, properties, strict=True)]
    obj = add_object(request, kind, sample_id, stored, run, received, now)
    return obj, stored, True


def add_object(request: Any, kind: FileKind, sample_id: int, files: Sequence[SequenceFile],
               run: SequencingRun | None = None, received: Any = None,
               now: Any = None) -> SequencingObject:
    """One sequencing object of ``kind`` in the sample holding ``files`` (stored, in the
    kind's order), its kind's ``prepare`` run (which may refuse it by raising): what an
    upload keeps, and what attached FASTQ files become (:mod:`seqcore.files.attachments`)."""
    db: Session = request.db
    obj = SequencingObject(sample_id=sample_id, kind=kind.name,
                           run_id=run.id if run else None, created=now or utcnow())
    for position, record in enumerate(files):
        obj.links.append(SequencingObjectFile(position=position, file=record))
    db.add(obj)
    db.flush()
    if kind.prepare is not None:
        kind.prepare(request, obj, received)
    db.flush()
    return obj


def store_file(tm: Any, received: ReceivedFile,
               inspect: Callable[[Path], None] | None = None) -> SequenceFile:
    """Keep one received file that belongs to no sequencing object (an assembly, a
    reference): ``inspect(path)`` may read all of it first and raise to refuse it. Returns
    the unsaved :class:`SequenceFile`."""
    if inspect is not None:
        writer = received.writer
        if isinstance(writer, ObjectWriter):
            # In an object store: a staged copy (the caller discards the writer on refusal).
            writer.close()
            with writer.storage.local_copy(writer.key) as staged:
                inspect(staged)
        else:
            assert writer.tmp_path is not None
            inspect(writer.tmp_path)
    return SequenceFile(path=keep(received, tm), file_name=received.file_name,
                        size=received.writer.size, upload_sha256=received.writer.sha256)
