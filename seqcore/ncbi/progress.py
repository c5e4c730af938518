"""Every change the worker makes to an NCBI submission, each a typed operation on the
worker's session (committed with the worker's transaction): taking it for upload, recording
what has been uploaded, the end of the upload, NCBI's report, and the accessions written back
to the samples' metadata.

State moves are conditional updates (``_move``): a submission is only moved from the state
the worker read, so two workers never both act on one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from seqcore.db import rowcount, utcnow
from seqcore.governance.activity import Actor, operation
from seqcore.models.ncbi import ExportUploadState, NcbiSubmission, NcbiUploadFile
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.models.sequencing import SequencingObject
from seqcore.ncbi.documents import (
    Contact,
    Report,
    ReportAction,
    RunDocument,
    SampleDocument,
    SubmissionDocument,
)
from seqcore.ncbi.ftp import Source
from seqcore.parsing.timestamps import epoch_ms

log = logging.getLogger(__name__)

S = ExportUploadState
#: States in which NCBI's report is read again: IRIDA's, RETRIED (NCBI is at it again) and
#: UNKNOWN (a status seqcore does not know yet; the next report may say more).
POLLED = (S.UPLOADED, S.SUBMITTED, S.CREATED, S.QUEUED, S.PROCESSING, S.WAITING, S.RETRIED,
          S.UNKNOWN)
#: NCBI's answers that end a submission, or an action.
FINAL = (S.PROCESSED_OK, S.PROCESSED_ERROR, S.FAILED, S.DELETED)
ERRORS = (S.PROCESSED_ERROR, S.FAILED)

#: The metadata fields accessions are written to (IRIDA's name for the SRA one).
BIOSAMPLE_FIELD = "NCBI BioSample Accession"
SRA_FIELD = "NCBI SRA Accession"

SUBMISSION_XML = "submission.xml"
SUBMIT_READY = "submit.ready"


class Superseded(Exception):
    """The submission is no longer in the state the worker read."""


def _move(db: Session, submission: NcbiSubmission, new: S, **values: Any) -> None:
    old = submission.state
    moved = db.execute(update(NcbiSubmission).where(
        NcbiSubmission.id == submission.id, NcbiSubmission.state == old)
        .values(state=new.value).execution_options(synchronize_session=False))
    if rowcount(moved) != 1:
        raise Superseded(f"NCBI submission {submission.id} is no longer {old}")
    now = utcnow()
    submission.state = new.value
    submission.history = [*(submission.history or []), [new.value, epoch_ms(now)]]
    submission.modified = now
    for key, value in values.items():
        setattr(submission, key, value)
    db.flush()
    log.info("NCBI submission %s: %s -> %s request_id=%s", submission.id, old, new.value,
             submission.request_id or "-")


# -- uploading ----------------------------------------------------------------------------


def waiting_for_upload(db: Session, now: datetime) -> list[int]:
    """Submissions to upload: new ones, and interrupted uploads whose lease ran out."""
    return list(db.scalars(select(NcbiSubmission.id).where(or_(
        NcbiSubmission.state == S.NEW.value,
        (NcbiSubmission.state == S.UPLOADING.value)
        & (or_(NcbiSubmission.lease_until.is_(None), NcbiSubmission.lease_until < now))))
        .order_by(NcbiSubmission.id)))


def take_for_upload(db: Session, submission_id: int, worker: str, lease: timedelta) -> bool:
    """Take the submission (``NEW`` → ``UPLOADING``, or an interrupted ``UPLOADING`` whose
    lease ran out) with a lease; false when another worker has it."""
    now = utcnow()
    submission = db.get(NcbiSubmission, submission_id)
    if submission is None:
        return False
    free = or_(NcbiSubmission.lease_until.is_(None), NcbiSubmission.lease_until < now)
    taken = db.execute(update(NcbiSubmission).where(
        NcbiSubmission.id == submission_id, NcbiSubmission.state == submission.state,
        NcbiSubmission.state.in_([S.NEW.value, S.UPLOADING.value]), free)
        .values(worker=worker, lease_until=now + lease)
        .execution_options(synchronize_session=False))
    if rowcount(taken) != 1:
        return False
    db.refresh(submission)
    if submission.state == S.NEW.value:
        _move(db, submission, S.UPLOADING, directory=f"seqcore-{submission.id}-"
                                                     f"{epoch_ms(submission.created)}")
    return True


def renew_lease(db: Session, submission_id: int, worker: str, lease: timedelta) -> None:
    db.execute(update(NcbiSubmission).where(
        NcbiSubmission.id == submission_id, NcbiSubmission.worker == worker)
        .values(lease_until=utcnow() + lease))


@dataclass(frozen=True)
class PlannedFile:
    """A file to upload: its row, its name in the submission directory, where its bytes are
    (a stored file's path, or the document itself), and its size."""

    row_id: int
    remote_name: str
    source: Source
    size: int
    uploaded: bool


def remote_name(file_id: int, stored_name: str) -> str:
    """As IRIDA: the file's id, never the sample's name, with the extension NCBI needs."""
    return f"{file_id}.fastq.gz" if stored_name.endswith(".gz") else f"{file_id}.fastq"


def _ordered_files(registry: Any, obj: SequencingObject, db: Session) -> list[Any]:
    for kind in registry.get("seqcore.file_kinds", {}).values():
        if kind.name == obj.kind and kind.pipeline_files is not None:
            return list(kind.pipeline_files(db, obj))
    return list(obj.files)


def document(db: Session, registry: Any, submission: NcbiSubmission) -> SubmissionDocument:
    """``submission.xml``'s content, from the rows (the same every time it is built)."""
    samples = []
    for sample in submission.samples:
        runs = []
        for run in sample.runs:
            obj = db.get(SequencingObject, run.object_id) if run.object_id else None
            if obj is None:
                raise FileNotFoundError(f"the reads of run {run.spuid} were deleted")
            runs.append(RunDocument(run.spuid, run.layout, [
                remote_name(f.id, f.file_name) for f in _ordered_files(registry, obj, db)]))
        library = {"instrument_model": sample.instrument_model,
                   "library_name": sample.library_name,
                   "library_strategy": sample.library_strategy,
                   "library_source": sample.library_source,
                   "library_selection": sample.library_selection,
                   "library_construction_protocol": sample.library_construction_protocol or ""}
        attributes = dict(sample.attributes or {})
        samples.append(SampleDocument(
            spuid=sample.spuid, title=sample.sample_name, bio_sample=sample.bio_sample,
            organism=attributes.get("organism", ""),
            attributes=sorted(attributes.items()), library=library, runs=runs))
    contact = submission.contact or {}
    return SubmissionDocument(
        bio_project=submission.bio_project, organization=submission.organization,
        contact=Contact(contact.get("email", ""), contact.get("first", ""),
                        contact.get("last", "")),
        namespace=submission.namespace, package=submission.package,
        release_date=submission.release_date,
        comment=f"seqcore NCBI submission {submission.id}", samples=samples)


def plan_files(db: Session, registry: Any, storage: Any, submission: NcbiSubmission,
               xml: bytes) -> list[PlannedFile]:
    """The files of the submission in upload order (reads, ``submission.xml``,
    ``submit.ready``), with a row for each recorded the first time, so a resumed upload
    knows what has arrived."""
    rows = {row.remote_name: row for row in db.scalars(select(NcbiUploadFile).where(
        NcbiUploadFile.submission_id == submission.id))}
    planned: list[PlannedFile] = []

    def plan(name: str, source: Source, size: int, run_id: int | None,
             file_id: int | None) -> None:
        row = rows.get(name)
        if row is None:
            row = NcbiUploadFile(submission_id=submission.id, run_id=run_id, file_id=file_id,
                                 remote_name=name, size=size)
            db.add(row)
            db.flush()
            rows[name] = row
        planned.append(PlannedFile(row.id, name, source, size, row.uploaded is not None))

    for sample in submission.samples:
        for run in sample.runs:
            obj = db.get(SequencingObject, run.object_id) if run.object_id else None
            if obj is None:
                raise FileNotFoundError(f"the reads of run {run.spuid} were deleted")
            for stored in _ordered_files(registry, obj, db):
                if not storage.is_local and storage.size(stored.path) is None:
                    raise FileNotFoundError(f"the stored file behind "
                                            f"{remote_name(stored.id, stored.file_name)} is "
                                            "missing")
                source: Source = (storage.path(stored.path) if storage.is_local else
                                  partial(storage.open, stored.path))
                plan(remote_name(stored.id, stored.file_name), source, stored.size, run.id,
                     stored.id)
    plan(SUBMISSION_XML, xml, len(xml), None, None)
    plan(SUBMIT_READY, b"", 0, None, None)
    return planned


def file_uploaded(db: Session, row_id: int) -> None:
    """The server holds the whole file (its size checked): never send it again."""
    row = db.get(NcbiUploadFile, row_id)
    if row is not None and row.uploaded is None:
        row.uploaded = utcnow()


def upload_finished(db: Session, submission_id: int) -> None:
    """Everything is on the server with ``submit.ready``: ``UPLOADED``; NCBI takes over."""
    submission = db.get_one(NcbiSubmission, submission_id)
    _move(db, submission, S.UPLOADED, lease_until=None, error=None)
    for sample in submission.samples:
        sample.status = S.UPLOADED.value
        for run in sample.runs:
            run.status = S.UPLOADED.value


def upload_failed(db: Session, submission_id: int, reason: str) -> None:
    """The upload cannot succeed (refused by the server, reads gone): ``UPLOAD_ERROR``."""
    submission = db.get(NcbiSubmission, submission_id)
    if submission is None or submission.state != S.UPLOADING.value:
        return
    _move(db, submission, S.UPLOAD_ERROR, lease_until=None, error=reason[:10_000])
    for sample in submission.samples:
        sample.status = S.UPLOAD_ERROR.value


def upload_interrupted(db: Session, submission_id: int, reason: str, max_attempts: int) -> None:
    """The connection kept failing this round: a later round resumes (the lease is given
    back), unless this was the last attempt allowed."""
    submission = db.get(NcbiSubmission, submission_id)
    if submission is None or submission.state != S.UPLOADING.value:
        return
    submission.attempts += 1
    if submission.attempts >= max_attempts:
        upload_failed(db, submission_id, f"The connection to NCBI failed in "
                                         f"{submission.attempts} upload rounds; last: {reason}")
        return
    submission.lease_until = None
    submission.error = reason[:10_000]
    submission.modified = utcnow()


# -- NCBI's answers -----------------------------------------------------------------------


def due_for_report(db: Session, now: datetime, every: float) -> list[int]:
    """Submissions NCBI is processing whose report was last read ``every`` seconds ago."""
    last = now - timedelta(seconds=every)
    return list(db.scalars(select(NcbiSubmission.id).where(
        NcbiSubmission.state.in_([s.value for s in POLLED]),
        or_(NcbiSubmission.polled.is_(None), NcbiSubmission.polled <= last))
        .order_by(NcbiSubmission.id)))


def report_polled(db: Session, submission_id: int) -> None:
    """The report was looked for (whether or not NCBI has written one yet)."""
    submission = db.get(NcbiSubmission, submission_id)
    if submission is not None:
        submission.polled = utcnow()


def report_unreadable(db: Session, submission_id: int, reason: str) -> None:
    """NCBI's report cannot be read: ``UPLOAD_ERROR`` (as IRIDA answers a bad report)."""
    submission = db.get(NcbiSubmission, submission_id)
    if submission is None or submission.state not in [s.value for s in POLLED]:
        return
    _move(db, submission, S.UPLOAD_ERROR, error=reason[:10_000], polled=utcnow())


def _combined(actions: Sequence[ReportAction | None], overall: S) -> S:
    """A sample's status from its actions: an error if any failed, ``PROCESSED_OK`` when
    all did, else where the first unfinished one stands."""
    known = [action for action in actions if action is not None]
    for action in known:
        if action.status in ERRORS:
            return action.status
    if known and len(known) == len(actions) and all(a.status is S.PROCESSED_OK for a in known):
        return S.PROCESSED_OK
    for action in known:
        if action.status is not S.PROCESSED_OK:
            return action.status
    return overall if overall not in (S.PROCESSED_OK, *ERRORS) else S.SUBMITTED


def apply_report(db: Session, submission_id: int, report: Report) -> bool:
    """Record NCBI's report: the submission's state and NCBI id, each sample's and run's
    status, accession and messages; then write the accessions back. True when anything
    changed."""
    submission = db.get(NcbiSubmission, submission_id)
    if submission is None or submission.state not in [s.value for s in POLLED]:
        return False
    changed = False
    if report.submission_id and submission.ncbi_id != report.submission_id:
        submission.ncbi_id = report.submission_id
        changed = True
    for sample in submission.samples:
        actions: list[ReportAction | None] = []
        if not sample.bio_sample:
            biosample = report.action_for(sample.spuid, "BioSample")
            actions.append(biosample)
            if biosample is not None and biosample.accession and \
                    sample.accession != biosample.accession:
                sample.accession = biosample.accession
                changed = True
        for run in sample.runs:
            action = report.action_for(run.spuid, "SRA")
            actions.append(action)
            if action is None:
                continue
            if action.status.value != run.status or (action.accession or None) not in (
                    None, run.accession):
                changed = True
            run.status = action.status.value
            run.accession = action.accession or run.accession
            run.message = "; ".join(action.messages) or None
        status = _combined(actions, report.status)
        messages = dict.fromkeys(m for a in actions if a is not None and a.status in ERRORS
                                 for m in a.messages)
        if sample.status != status.value:
            sample.status = status.value
            changed = True
        sample.message = "; ".join(messages) or None
    if report.status.value != submission.state:
        _move(db, submission, report.status, polled=utcnow())
        changed = True
    else:
        submission.polled = utcnow()
    write_accessions(db, submission)
    return changed


@operation("ncbi.accessions",
           actor=lambda db, submission: Actor("ncbi", submission_id=submission.id))
def write_accessions(db: Session, submission: NcbiSubmission) -> None:
    """Put each sample's accessions into its metadata (``NCBI BioSample Accession``,
    ``NCBI SRA Accession``, several runs separated by ``, ``), with the submission as their
    provenance; only for samples the submitter could change, and only what differs."""
    now = utcnow()
    for sample in submission.samples:
        if not sample.write_back or sample.sample_id is None:
            continue
        values = {}
        if sample.accession:
            values[BIOSAMPLE_FIELD] = sample.accession
        runs = [run.accession for run in sample.runs if run.accession]
        if runs:
            values[SRA_FIELD] = ", ".join(runs)
        if not values:
            continue
        existing = {entry.field: entry for entry in db.scalars(select(MetadataEntry).where(
            MetadataEntry.sample_id == sample.sample_id,
            MetadataEntry.field.in_(list(values))))}
        touched = False
        for field, value in values.items():
            entry = existing.get(field)
            if entry is None:
                db.add(MetadataEntry(sample_id=sample.sample_id, field=field, value=value,
                                     type="text", ncbi_submission_id=submission.id))
                touched = True
            elif (entry.value, entry.ncbi_submission_id) != (value, submission.id):
                entry.value, entry.type, entry.modified = value, "text", now
                entry.ncbi_submission_id, entry.submission_id = submission.id, None
                touched = True
        if touched:
            target = db.get(Sample, sample.sample_id)
            if target is not None:
                target.modified = now
    db.flush()
