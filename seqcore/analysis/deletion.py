"""Deleting analysis submissions: the submission, its links to inputs and projects, its
outputs (rows, and stored bytes once committed) and its work directories go together.

A submission's content is immutable; deleting is the only change it takes, and only when no
worker holds it: a submission in a running state (preparing, running, collecting, writing
back) is refused with :class:`~seqcore.errors.domain.Conflict` until it is ``COMPLETED`` or
``ERROR`` (a ``NEW`` one, not yet taken, may go). The state is checked again by the delete
statement itself, so a worker taking the submission meanwhile makes the delete a conflict
rather than pull the rows from under it; so does a worker cleaning its work directory.

Plugins hear of it first (``submissions_deleting``) and remove or detach their own rows. What
the submission wrote back to samples stays: metadata keeps its value and loses only the
provenance; an assembly stays the sample's (its plugin clears the reference). An output file
that another row still uses (a write-back that kept the output itself) stays too
(:func:`seqcore.governance.purge.purge_files`). Work directories are removed only after the commit.
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from seqcore.db import rowcount
from seqcore.errors.domain import Conflict
from seqcore.governance.purge import purge_files
from seqcore.models.analysis import (
    AnalysisOutput,
    AnalysisState,
    AnalysisSubmission,
    CleanedState,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.sample import MetadataEntry

log = logging.getLogger(__name__)

# States in which no worker holds the submission.
DELETABLE = (AnalysisState.NEW.value, AnalysisState.COMPLETED.value,
             AnalysisState.ERROR.value, AnalysisState.DOWNLOADING.value,
             AnalysisState.FINISHED_DOWNLOADING.value)


def refuse_running(submission: AnalysisSubmission) -> None:
    """:class:`Conflict` while a worker holds the submission (running it, or cleaning its
    work directory)."""
    if submission.state not in DELETABLE:
        raise Conflict(f"Analysis submission {submission.id} is {submission.state}; it can be "
                       "deleted once it is COMPLETED or ERROR.")
    if submission.cleaned_state == CleanedState.CLEANING.value:
        raise Conflict(f"The work directory of analysis submission {submission.id} is being "
                       "cleaned; it can be deleted in a moment.")


def work_directories(work_root: Path | None, submission: AnalysisSubmission) -> list[Path]:
    """The submission's work directory and those of its earlier attempts
    (``<work root>/<id>-<attempt>``), only ever inside the work root."""
    found: dict[Path, None] = {}
    root = work_root.resolve() if work_root is not None else None
    candidates = [Path(submission.work_dir)] if submission.work_dir else []
    if root is not None and root.is_dir():
        pattern = re.compile(rf"{submission.id}-\d+")
        candidates += [p for p in root.iterdir() if pattern.fullmatch(p.name)]
    for path in candidates:
        resolved = path.resolve()
        if root is None or root in resolved.parents:
            found[resolved] = None
    return list(found)


def _remove_after_commit(manager: Any, directories: list[Path]) -> None:
    def remove(committed: bool) -> None:
        if not committed:
            return
        for directory in directories:
            try:
                shutil.rmtree(directory)
            except FileNotFoundError:
                pass
            except OSError:
                log.exception("could not remove the work directory %s", directory)

    if directories:
        manager.get().addAfterCommitHook(remove)


def delete_submission(db: Session, pm: Any, submission: AnalysisSubmission, storage: Any,
                      manager: Any, work_root: Path | None = None, request: Any = None
                      ) -> None:
    """Delete ``submission`` with its inputs' and projects' links, its outputs and work
    directories. :class:`Conflict` (nothing deleted) while a worker holds it; whatever a
    plugin hook raises aborts the delete as well."""
    refuse_running(submission)
    submission_id = submission.id
    directories = work_directories(work_root, submission)
    pm.hook.submissions_deleting(submission_ids=[submission_id], request=request)
    file_ids = list(db.scalars(select(AnalysisOutput.file_id).where(
        AnalysisOutput.submission_id == submission_id)))
    db.execute(update(MetadataEntry).where(MetadataEntry.submission_id == submission_id)
               .values(submission_id=None).execution_options(synchronize_session=False))
    for model in (AnalysisOutput, SubmissionInput, SubmissionProject):
        db.execute(delete(model).where(model.submission_id == submission_id)
                   .execution_options(synchronize_session=False))
    gone = db.execute(delete(AnalysisSubmission).where(
        AnalysisSubmission.id == submission_id, AnalysisSubmission.state.in_(DELETABLE),
        AnalysisSubmission.cleaned_state != CleanedState.CLEANING.value)
        .execution_options(synchronize_session=False))
    if rowcount(gone) != 1:  # a worker took it since it was read
        raise Conflict(f"Analysis submission {submission_id} has just been taken by a worker; "
                       "it can be deleted once it is COMPLETED or ERROR.")
    purge_files(db, storage, manager, file_ids)
    db.expunge(submission)
    _remove_after_commit(manager, directories)
