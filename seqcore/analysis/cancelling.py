"""Cancelling analysis submissions: the submission ends, and its executor stops the job.

seqcore's states are IRIDA's, which have no cancelled state, so a cancelled submission ends
in ``ERROR`` with the reason naming who cancelled it and in which state (``Cancelled by
alice while RUNNING.``); clients of IRIDA's API see a state they know. A ``NEW`` submission
(no worker has taken it) simply ends so; one a worker holds ends so too, and the worker
leaves it alone from then on: every move of the worker is conditional on the state it read
(:mod:`seqcore.analysis.worker`), so it neither submits, completes nor collects the outputs
of a cancelled submission. A submission that already ended (``COMPLETED`` or ``ERROR``) is a
:class:`~seqcore.errors.domain.Conflict`.

The executor's ``cancel(remote_id)`` (a local process killed, a Celery task revoked, a WES
run's ``POST /runs/{id}/cancel``) is called once the transaction is committed, so a cancel
that is rolled back stops nothing; its failure is logged and does not undo the cancel.
Callers check the permission first: cancelling is allowed to whoever may delete the
submission (:data:`seqcore.security.access.SUBMISSION`, ``SUBMISSION_DELETE``).
"""

from __future__ import annotations

import logging
from typing import Any

from pyramid.registry import Registry
from sqlalchemy import update
from sqlalchemy.orm import Session

from seqcore.analysis.registry import make_executor
from seqcore.db import rowcount, utcnow
from seqcore.errors.domain import Conflict
from seqcore.models.analysis import AnalysisState, AnalysisSubmission
from seqcore.models.user import User
from seqcore.parsing.timestamps import epoch_ms

log = logging.getLogger(__name__)

ENDED = (AnalysisState.COMPLETED.value, AnalysisState.ERROR.value)


def cancelled_message(who: str, state: str) -> str:
    return f"Cancelled by {who} while {state}."


def cancel_submission(db: Session, registry: Registry, submission: AnalysisSubmission,
                      user_id: int | None, manager: Any, request: Any = None
                      ) -> AnalysisSubmission:
    """End ``submission`` in ``ERROR`` as cancelled by ``user_id``; stop its job after the
    commit. :class:`Conflict` (nothing changed) when it has ended, or ended meanwhile."""
    old = submission.state
    if old in ENDED:
        raise Conflict(f"Analysis submission {submission.id} is {old}; only a submission that "
                       "has not ended can be cancelled.")
    user = db.get(User, user_id) if user_id is not None else None
    message = cancelled_message(user.username if user is not None else "the system", old)
    moved = db.execute(
        update(AnalysisSubmission)
        .where(AnalysisSubmission.id == submission.id, AnalysisSubmission.state == old)
        .values(state=AnalysisState.ERROR.value)
        .execution_options(synchronize_session=False))
    if rowcount(moved) != 1:  # a worker moved it meanwhile
        raise Conflict(f"Analysis submission {submission.id} changed state meanwhile; ask "
                       "again.")
    submission.state = AnalysisState.ERROR.value
    submission.error = message
    submission.lease_until = None
    submission.modified = utcnow()
    submission.history = [*(submission.history or []),
                          [AnalysisState.ERROR.value, epoch_ms(utcnow())]]
    db.flush()
    registry.pm.hook.submission_state_changed(
        submission=submission, old_state=old, new_state=AnalysisState.ERROR.value,
        request=request)
    if submission.remote_workflow_id and submission.executor:
        _stop_after_commit(manager, registry, submission.executor,
                           submission.remote_workflow_id, submission.id)
    return submission


def _stop_after_commit(manager: Any, registry: Registry, executor_name: str, remote_id: str,
                       submission_id: int) -> None:
    def stop(committed: bool) -> None:
        if not committed:
            return
        try:
            make_executor(registry, executor_name).cancel(remote_id)
        except Exception:
            log.exception("submission %s was cancelled, but its executor %s could not stop "
                          "job %s", submission_id, executor_name, remote_id)

    manager.get().addAfterCommitHook(stop)
