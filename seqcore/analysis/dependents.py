"""Sequence data that analyses used stays: deleting it is refused while a submission names
it as an input.

A submission's record of its inputs is the link from the submission to the sequencing
objects it ran on. Deleting such an object (directly, with its sample, or with the project
that alone holds the sample) would erase that record and leave a result that no longer says
what it was computed from. So the delete is refused, naming the submissions; the data can
go once they do. Submissions in every state count: a running one still needs its inputs, and
a failed one still shows what it was given.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from seqcore.models.analysis import AnalysisSubmission, SubmissionInput
from seqcore.models.sequencing import SequencingObject


class InputsInUse(Exception):
    """The data to delete is an input of these submissions (``(id, name)`` pairs)."""

    def __init__(self, what: str, submissions: list[tuple[int, str]]) -> None:
        super().__init__(f"{what} is an input of analysis submission(s) "
                         + ", ".join(str(i) for i, _ in submissions))
        self.what = what
        self.submissions = submissions


def submissions_using(db: Session, object_ids: Iterable[int] = (),
                      sample_ids: Iterable[int] = ()) -> list[tuple[int, str]]:
    """``(id, name)`` of every submission with an input among these objects or the objects
    of these samples, by id."""
    objects = list(object_ids)
    samples = list(sample_ids)
    if not objects and not samples:
        return []
    used = select(SubmissionInput.submission_id).join(
        SequencingObject, SequencingObject.id == SubmissionInput.object_id)
    conditions = []
    if objects:
        conditions.append(SequencingObject.id.in_(objects))
    if samples:
        conditions.append(SequencingObject.sample_id.in_(samples))
    used = used.where(or_(*conditions))
    rows = db.execute(select(AnalysisSubmission.id, AnalysisSubmission.name)
                      .where(AnalysisSubmission.id.in_(used))
                      .order_by(AnalysisSubmission.id))
    return [(row.id, row.name) for row in rows]


def refuse_if_used(db: Session, what: str, object_ids: Iterable[int] = (),
                   sample_ids: Iterable[int] = ()) -> None:
    """Raise :class:`InputsInUse` if any submission used these objects or samples' data."""
    submissions = submissions_using(db, object_ids, sample_ids)
    if submissions:
        raise InputsInUse(what, submissions)
