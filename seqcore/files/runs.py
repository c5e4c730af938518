"""Sequencing runs: deleting a run with the data it brought in, and attaching existing
sequencing objects to a run.

A run is the record of one sequencer's upload. Deleting it removes what that upload made:
its sequencing objects with their stored files, and the samples that held nothing else. It
never removes what something else still refers to, so the whole delete is refused (nothing
changed) while an analysis submission names one of the run's objects as an input
(:mod:`seqcore.analysis.dependents`). Rows go in the caller's transaction; the stored bytes
go only after it commits, so a delete that fails halfway loses no file.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.analysis.dependents import refuse_if_used
from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Invalid
from seqcore.files.uploads import lock_sample
from seqcore.governance.activity import note, operation
from seqcore.governance.purge import delete_objects
from seqcore.models.sequencing import (
    SequencingObject,
    SequencingRun,
    UploadStatus,
)
from seqcore.parsing.identifiers import parse_id
from seqcore.samples.samples import delete_samples

SEQUENCE_FILE_ID = "sequenceFileId"
ID_MESSAGE = "You must give the id of a sequencing object as sequenceFileId."


def run_object_ids(db: Session, run_id: int) -> list[int]:
    """The ids of the sequencing objects that came with the run."""
    return list(db.scalars(select(SequencingObject.id)
                           .where(SequencingObject.run_id == run_id)
                           .order_by(SequencingObject.id)))


def samples_left_empty(db: Session, object_ids: list[int]) -> list[int]:
    """The samples holding these objects that hold no other sequencing object."""
    if not object_ids:
        return []
    touched = (select(SequencingObject.sample_id)
               .where(SequencingObject.id.in_(object_ids)).distinct())
    others = (select(SequencingObject.sample_id)
              .where(SequencingObject.sample_id.in_(touched),
                     SequencingObject.id.not_in(object_ids)))
    return sorted(db.scalars(touched.where(SequencingObject.sample_id.not_in(others))))


@operation("run.delete")
def delete_run(db: Session, pm: Any, storage: Any, tm: Any, run: SequencingRun,
               request: Any = None) -> None:
    """Delete ``run``, its sequencing objects and their files, and the samples left empty.

    Raises :class:`~seqcore.analysis.dependents.InputsInUse` before changing anything when
    an analysis submission used one of the run's objects. Stored files are removed from
    ``storage`` once ``tm``'s transaction commits (never if it aborts).
    """
    # Hold the run, then the samples it brought data into (in id order, as uploads lock one
    # sample each), and read again under the locks: an upload into one of them waits, so a
    # sample judged empty cannot gain an object that would go with it.
    lock_row(db, SequencingRun, run.id)
    for sample_id in sorted(set(db.scalars(select(SequencingObject.sample_id).where(
            SequencingObject.run_id == run.id)))):
        lock_sample(db, sample_id)
    object_ids = run_object_ids(db, run.id)
    refuse_if_used(db, f"Sequencing run {run.id} holds sequence data that",
                   object_ids=object_ids)
    empty = samples_left_empty(db, object_ids)
    # The files go unless another row still holds them; their bytes only after commit.
    delete_objects(db, storage, tm, SequencingObject.id.in_(object_ids))
    delete_samples(db, pm, empty, request)
    note(db, on="run", id=run.id, action="deleted", objects=object_ids)
    db.execute(delete(SequencingRun).where(SequencingRun.id == run.id))
    db.expire_all()


def object_id_from(body: Any) -> int:
    """The sequencing object id of a body ``{"sequenceFileId": <id>}`` (a number or a
    string of digits, as IRIDA clients send it), or :class:`~seqcore.errors.domain.Invalid`."""
    value = body.get(SEQUENCE_FILE_ID) if isinstance(body, dict) else None
    number = parse_id(value.strip() if isinstance(value, str) else value)
    if number is None:
        raise Invalid.field(SEQUENCE_FILE_ID, ID_MESSAGE)
    return number


@operation("run.attach")
def attach_object(db: Session, run: SequencingRun, obj: SequencingObject) -> bool:
    """Make ``obj`` part of ``run``, moving it from the run it came with, if any (an object
    belongs to at most one run). Returns whether anything changed."""
    if obj.run_id == run.id:
        return False
    obj.run_id = run.id
    db.flush()
    return True


@operation("run.create")
def create_run(db: Session, user_id: int | None, sequencer_type: str, layout_type: str,
               description: str | None, sheet: dict[str, str]) -> SequencingRun:
    """A new run, ``UPLOADING``, created by ``user_id`` (validated values)."""
    run = SequencingRun(user_id=user_id, sequencer_type=sequencer_type, layout_type=layout_type,
                        description=description, upload_status=UploadStatus.UPLOADING.value,
                        properties=sheet)
    db.add(run)
    db.flush()
    return run


@operation("run.update")
def update_run(db: Session, run: SequencingRun, core: dict[str, Any], sheet: dict[str, str]
               ) -> None:
    """Set the given run fields (``uploadStatus``, ``layoutType``, ``description``,
    ``sequencerType``, validated) and merge run-sheet fields."""
    for key, attr in (("uploadStatus", "upload_status"), ("layoutType", "layout_type"),
                      ("description", "description"), ("sequencerType", "sequencer_type")):
        if key in core:
            setattr(run, attr, core[key])
    if sheet:
        run.properties = {**(run.properties or {}), **sheet}
    run.modified = utcnow()
    db.flush()
