"""The analysis state machine, driven by workers.

``NEW`` → ``PREPARING`` (work directory, ``job.json``) → ``PREPARED`` → ``SUBMITTING``
(handed to the executor) → ``RUNNING`` → ``FINISHED_RUNNING`` → ``COMPLETING`` (outputs
copied into storage) → [``TRANSFERRED`` → ``POST_PROCESSING`` (results written back to
samples), when asked] → ``COMPLETED``; ``ERROR`` from anywhere, with the reason.

Every move is a conditional update, so any number of workers can share the queue. Steps a
worker does itself hold a lease; a worker that dies mid-step leaves the lease to run out and
the next worker redoes the step (``PREPARING`` and ``SUBMITTING`` restart from ``NEW``,
``COMPLETING`` from ``FINISHED_RUNNING``, ``POST_PROCESSING`` from ``TRANSFERRED``), or, after
``seqcore.processing.max_attempts`` interruptions, marks the submission ``ERROR``. A running
job belongs to its executor: a job whose executor lost it is resubmitted the same way.

An executor whose server does not answer yet (:class:`SubmitLater`) leaves the submission
``PREPARED`` (its work directory ready, no lease): every round hands it over again, until
the executor takes it or gives up. An executor whose jobs wait in a queue (``queues``) leaves
it ``SUBMITTING`` with its remote id until ``poll`` says ``running``. A submission cancelled
meanwhile (``ERROR``, :mod:`seqcore.analysis.cancelling`) is never moved again: each move
is conditional on the state the worker read, and a job handed over just as it was cancelled
is cancelled at once.

A job's work directory is on the machine of the worker that prepared it, and no other
machine need have it: the submission records that worker as its ``owner``
(``seqcore.worker.name``: by default the host name and the work directory's root, the same
for every restart of the worker and shared by the processes of one machine that share that
root), and only the owner hands it over, polls it, collects its outputs and cleans its work
directory. Every round (and while a long step runs) the owner renews ``owner_seen`` on its
jobs; a job whose owner has not been seen for a lease (``seqcore.processing.lease_seconds``)
is taken over by another worker, which starts it again from ``NEW`` (a new attempt, counted
against ``max_attempts``, prepared into its own work directory), never by reading a directory
it does not have. Writing the results back (``TRANSFERRED`` onwards) reads only the store:
any worker does it. The WES executor is owned too: its run and outputs live on the WES
server and in the store, but it keeps the run's state, log and result in the work
directory, which ``poll`` reads and writes.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pyramid.registry import Registry
from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from seqcore.analysis.executors import SubmitLater
from seqcore.analysis.jobdata import JobSource
from seqcore.analysis.parameters import check_parameters
from seqcore.analysis.pipeline import write_job
from seqcore.analysis.registry import analysis_registry, make_executor
from seqcore.analysis.toolenvs import SETTING as TOOL_ENVIRONMENTS
from seqcore.analysis.toolenvs import environments_root
from seqcore.db import rowcount, utcnow
from seqcore.models.analysis import (
    AnalysisOutput,
    AnalysisState,
    AnalysisSubmission,
    CleanedState,
)
from seqcore.models.attachment import attach_files
from seqcore.models.sample import Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.notifications.events import analysis_finished
from seqcore.observability import instruments, requestid, tracing
from seqcore.parsing.timestamps import epoch_ms
from seqcore.qc.processing import LeasedWorker, heartbeat

log = logging.getLogger(__name__)

S = AnalysisState
ACTIVE = (S.PREPARING, S.PREPARED, S.SUBMITTING, S.RUNNING, S.FINISHED_RUNNING, S.COMPLETING,
          S.TRANSFERRED, S.POST_PROCESSING)
# Where a worker's interrupted step starts over (PREPARED is only ever committed while it
# waits for its executor, which every round asks again: nothing to restart).
RESTART = {S.PREPARING: S.NEW, S.SUBMITTING: S.NEW,
           S.FINISHED_RUNNING: S.FINISHED_RUNNING, S.COMPLETING: S.FINISHED_RUNNING,
           S.TRANSFERRED: S.TRANSFERRED, S.POST_PROCESSING: S.TRANSFERRED}
# States a submission rests in between two steps, without a lease, until a worker's
# ``advance`` claims the next step: only one left with a lease that ran out was interrupted.
RESTING = (S.FINISHED_RUNNING, S.TRANSFERRED)
# States whose next step reads the owner's work directory: only the owner takes them, and
# another worker takes them over (from NEW) once the owner is gone.
OWNED = (S.PREPARING, S.PREPARED, S.SUBMITTING, S.RUNNING, S.FINISHED_RUNNING, S.COMPLETING)


def owner_name(settings: Any, work_root: Path) -> str:
    """``seqcore.worker.name``, else this host and the work directory's root: stable across
    restarts, and the same for the processes of a machine that share the directory."""
    name = str(settings.get("seqcore.worker.name") or "")
    if not name:
        name = f"{socket.gethostname()}:{work_root}"
        if len(name) > 255:  # the column's width; a long root is named by its digest
            digest = hashlib.sha256(str(work_root).encode()).hexdigest()
            name = f"{socket.gethostname()[:150]}:{digest}"
    return name[:255]


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _job_dir(sub: AnalysisSubmission) -> Path:
    """The submission's work directory: set when it was prepared, so every later state has it."""
    if sub.work_dir is None:
        raise RuntimeError(f"submission {sub.id} has no work directory")
    return Path(sub.work_dir)


class Superseded(Exception):
    """The submission left the state this worker read (it was cancelled): leave it alone."""


class AnalysisWorker(LeasedWorker):
    def __init__(self, registry: Registry, name: str | None = None) -> None:
        super().__init__(registry, name)
        self.analyses = analysis_registry(registry)
        self.max_attempts = int(self.settings["seqcore.processing.max_attempts"])
        self.capacity = int(self.settings["seqcore.analysis.max_running"])
        self.work_root = Path(self.settings["seqcore.analysis.work_path"]).resolve()
        self.owner = owner_name(self.settings, self.work_root)
        self._executors: dict[str, Any] = {}

    def executor_for(self, analysis_type: Any) -> str:
        """The executor's name for a type: a plugin's choice, else the deployment's setting."""
        chosen = self.registry.pm.hook.select_executor(analysis_type=analysis_type,
                                                       settings=self.settings)
        name: str = chosen or self.settings["seqcore.analysis.executor"]
        return name

    def executor(self, name: str | None) -> Any:
        key = name or self.settings["seqcore.analysis.executor"]
        if key not in self._executors:
            self._executors[key] = make_executor(self.registry, key)
        return self._executors[key]

    # -- moving between states -------------------------------------------------------------

    def _move(self, db: Session, sub: AnalysisSubmission, new: S, **values: Any) -> None:
        """``sub``'s state → ``new``, only if it is still the state read (else
        :class:`Superseded`: it was cancelled meanwhile)."""
        old = sub.state
        moved = db.execute(
            update(AnalysisSubmission)
            .where(AnalysisSubmission.id == sub.id, AnalysisSubmission.state == old)
            .values(state=new.value).execution_options(synchronize_session=False))
        if rowcount(moved) != 1:
            raise Superseded(f"submission {sub.id} is no longer {old}")
        sub.state = new.value
        sub.history = [*(sub.history or []), [new.value, epoch_ms(utcnow())]]
        sub.modified = utcnow()
        for key, value in values.items():
            setattr(sub, key, value)
        db.flush()
        if new in (S.COMPLETED, S.ERROR):  # committed (or not) with the move
            analysis_finished(db, self.registry.settings, sub)
        if new in (S.COMPLETED, S.ERROR) and sub.created is not None:
            instruments.ANALYSIS_DURATION.labels(type=sub.analysis_type, state=new.value).observe(
                max(0.0, (sub.modified - _aware(sub.created)).total_seconds()))
        if new in (S.RUNNING, S.COMPLETED, S.ERROR):
            log.info("submission %s (%s): %s request_id=%s", sub.id, sub.analysis_type,
                     new.value, sub.request_id or "-")
        try:
            self.registry.pm.hook.submission_state_changed(
                submission=sub, old_state=old, new_state=new.value, request=None)
        except Exception:
            log.exception("a submission_state_changed hook failed for %s", sub.id)

    def _mine(self) -> Any:
        """The submissions this worker may follow: its own, and those of no owner (prepared
        before owners were recorded)."""
        return or_(AnalysisSubmission.owner.is_(None), AnalysisSubmission.owner == self.owner)

    def _claim(self, submission_id: int, expected: S, new: S) -> bool:
        """Move ``expected`` → ``new`` only if nobody else did; take the lease. Preparing
        (from ``NEW``) makes this worker the owner; a step that reads the work directory
        (from an owned state) is only this worker's if it owns the submission."""
        values: dict[str, Any] = {}
        conditions = [AnalysisSubmission.id == submission_id,
                      AnalysisSubmission.state == expected.value]
        if expected == S.NEW:
            values = {"owner": self.owner, "owner_seen": utcnow()}
        elif expected in OWNED:
            conditions.append(self._mine())
        with self.session() as (db, _):
            result = db.execute(
                update(AnalysisSubmission)
                .where(*conditions)
                .values(state=new.value, worker=self.name, lease_until=utcnow() + self.lease,
                        modified=utcnow(), **values))
            if rowcount(result) != 1:
                return False
            sub = db.get_one(AnalysisSubmission, submission_id)
            sub.history = [*(sub.history or []), [new.value, epoch_ms(utcnow())]]
            self.registry.pm.hook.submission_state_changed(
                submission=sub, old_state=expected.value, new_state=new.value, request=None)
        return True

    def fail(self, submission_id: int, reason: str) -> None:
        try:
            with self.session() as (db, _):
                sub = db.get(AnalysisSubmission, submission_id)
                if sub is not None and sub.state not in (S.ERROR, S.COMPLETED):
                    self._move(db, sub, S.ERROR, error=reason[:10_000], lease_until=None)
        except Superseded:
            pass  # it ended meanwhile (cancelled)

    # -- one round --------------------------------------------------------------------------

    def run_once(self) -> int:
        """Recover, start what capacity allows, advance running jobs, clean up; returns how
        many submissions moved."""
        self.seen()
        moved = self.recover()
        moved += self.take_over()
        moved += self.schedule()
        moved += self.advance()
        self.cleanup()
        return moved

    def run_until_idle(self, timeout: float = 300.0, interval: float = 0.2) -> None:
        """Drive every submission to COMPLETED or ERROR (tests, ``seqcore worker --once``)."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.run_once()
            with self.session() as (db, _):
                busy = db.scalar(select(func.count()).select_from(AnalysisSubmission).where(
                    AnalysisSubmission.state.in_([S.NEW.value, *(s.value for s in ACTIVE)])))
            if not busy:
                return
            time.sleep(interval)
        raise TimeoutError("analyses still running after the timeout")

    def recover(self) -> int:
        now = utcnow()
        moved = 0
        with self.session() as (db, _):
            stale = db.scalars(select(AnalysisSubmission).where(
                AnalysisSubmission.state.in_([s.value for s in RESTART]),
                or_(AnalysisSubmission.lease_until.is_(None),
                    AnalysisSubmission.lease_until < now)))
            for sub in stale:
                if sub.state == S.SUBMITTING and sub.remote_workflow_id:
                    continue  # handed over, queued at its executor: advance() follows it
                if sub.state in RESTING and sub.lease_until is None:
                    continue  # waiting for the next step, which no worker has taken yet
                try:
                    if sub.attempts + 1 >= self.max_attempts:
                        self._move(db, sub, S.ERROR, lease_until=None,
                                   attempts=sub.attempts + 1, error=(
                                       f"Interrupted {sub.attempts + 1} times while "
                                       f"{sub.state} (worker {sub.worker} stopped); giving up."))
                    else:
                        log.warning("submission %s: %s was interrupted; redoing it", sub.id,
                                    sub.state)
                        self._move(db, sub, RESTART[S(sub.state)], lease_until=None,
                                   attempts=sub.attempts + 1)
                except Superseded:
                    continue
                moved += 1
        return moved

    def seen(self) -> None:
        """Tell the other workers this one is alive: ``owner_seen`` on every job it owns."""
        with self.session() as (db, _):
            db.execute(update(AnalysisSubmission).where(
                AnalysisSubmission.owner == self.owner,
                AnalysisSubmission.state.in_([s.value for s in OWNED]))
                .values(owner_seen=utcnow()).execution_options(synchronize_session=False))

    def _seen_meanwhile(self) -> Any:
        """While a long step runs (staging inputs, collecting outputs), ``seen`` a few times
        per lease, so the other workers do not take this worker's jobs over meanwhile."""
        return heartbeat(self.lease, self.seen, f"the analyses of {self.owner}")

    def take_over(self) -> int:
        """Start again (from ``NEW``, a new attempt) the jobs of owners not seen for a lease:
        their work directories are on a machine that is gone or stopped. After
        ``max_attempts`` the submission is marked ``ERROR``."""
        cutoff = utcnow() - self.lease
        with self.session() as (db, _):
            orphans = [(s.id, s.state, s.owner) for s in db.scalars(
                select(AnalysisSubmission).where(
                    AnalysisSubmission.state.in_([s.value for s in OWNED]),
                    AnalysisSubmission.owner.is_not(None),
                    AnalysisSubmission.owner != self.owner,
                    or_(AnalysisSubmission.owner_seen.is_(None),
                        AnalysisSubmission.owner_seen < cutoff)))]
        moved = 0
        for submission_id, state, owner in orphans:
            try:
                with self.session() as (db, _):
                    # Only one worker takes it: the first to find it still the gone owner's.
                    taken = db.execute(update(AnalysisSubmission).where(
                        AnalysisSubmission.id == submission_id,
                        AnalysisSubmission.state == state,
                        AnalysisSubmission.owner == owner,
                        or_(AnalysisSubmission.owner_seen.is_(None),
                            AnalysisSubmission.owner_seen < cutoff))
                        .values(owner=self.owner, owner_seen=utcnow())
                        .execution_options(synchronize_session=False))
                    if rowcount(taken) != 1:
                        continue
                    sub = db.get_one(AnalysisSubmission, submission_id)
                    db.refresh(sub)
                    attempts = sub.attempts + 1
                    if attempts >= self.max_attempts:
                        self._move(db, sub, S.ERROR, lease_until=None, attempts=attempts,
                                   error=(f"Its worker {owner} stopped {attempts} times "
                                          f"(last while {state}); giving up."))
                    else:
                        log.warning("submission %s: its worker %s has not been seen for %s "
                                    "while it was %s; preparing it again", submission_id,
                                    owner, self.lease, state)
                        self._move(db, sub, S.NEW, lease_until=None, attempts=attempts,
                                   owner=None, owner_seen=None, remote_workflow_id=None)
            except Superseded:
                continue
            moved += 1
        return moved

    def schedule(self) -> int:
        with self.session() as (db, _):
            running = db.execute(select(func.count()).select_from(AnalysisSubmission).where(
                AnalysisSubmission.state.in_([s.value for s in ACTIVE]))).scalar_one()
            free = self.capacity - running
            if free <= 0:
                return 0
            waiting = list(db.scalars(
                select(AnalysisSubmission.id).where(AnalysisSubmission.state == S.NEW.value)
                .order_by(AnalysisSubmission.priority_rank, AnalysisSubmission.id)
                .limit(free)))
        started = 0
        for submission_id in waiting:
            if self._claim(submission_id, S.NEW, S.PREPARING):
                self.start(submission_id)
                started += 1
        for submission_id in self._waiting_for_executor():
            if self._claim(submission_id, S.PREPARED, S.SUBMITTING):
                with self._continued(submission_id, "analysis.hand_over"):
                    self.hand_over(submission_id)
                started += 1
        return started

    def _waiting_for_executor(self) -> list[int]:
        """Prepared submissions whose executor could not take them yet."""
        with self.session() as (db, _):
            return list(db.scalars(
                select(AnalysisSubmission.id).where(AnalysisSubmission.state == S.PREPARED.value,
                                                    self._mine())
                .order_by(AnalysisSubmission.priority_rank, AnalysisSubmission.id)))

    def start(self, submission_id: int) -> None:
        """PREPARING → PREPARED → SUBMITTING → RUNNING."""
        with self._continued(submission_id, "analysis.start"), self._seen_meanwhile():
            self._start(submission_id)

    @contextmanager
    def _continued(self, submission_id: int, name: str) -> Iterator[None]:
        """The id of the request that launched the submission made current (its worker logs
        carry it), and a span ``name`` continuing that request's trace."""
        with self.session() as (db, _):
            origin = db.execute(select(AnalysisSubmission.request_id,
                                       AnalysisSubmission.trace_context).where(
                AnalysisSubmission.id == submission_id)).one_or_none()
        request_id, parent = origin if origin is not None else (None, None)
        with requestid.bound(request_id), tracing.continued(parent, name, {
                "seqcore.analysis_submission.id": submission_id, "seqcore.worker": self.name}):
            yield

    def _start(self, submission_id: int) -> None:
        try:
            with self.session() as (db, _):
                sub = db.get_one(AnalysisSubmission, submission_id)
                analysis_type = self.analyses.type(sub.analysis_type)
                if analysis_type is None:
                    raise RuntimeError(f"the analysis type {sub.analysis_type!r} is not "
                                       "installed")
                work_dir = self.work_root / f"{sub.id}-{sub.attempts}"
                if work_dir.exists():
                    shutil.rmtree(work_dir)
                executor_name = self.executor_for(analysis_type)
                reads_urls = bool(getattr(self.executor(executor_name), "reads_urls", False))
                write_job(work_dir, self._job(db, sub, analysis_type, work_dir, reads_urls))
                self._move(db, sub, S.PREPARED, work_dir=str(work_dir),
                           executor=executor_name, remote_input_data_id=str(work_dir),
                           remote_workflow_id=None)
                self._move(db, sub, S.SUBMITTING)
        except Superseded:
            log.info("submission %s was cancelled while it was prepared", submission_id)
            return
        except Exception as err:
            log.exception("submission %s could not start", submission_id)
            self.fail(submission_id, f"Could not start: {type(err).__name__}: {err}")
            return
        self.hand_over(submission_id)

    def hand_over(self, submission_id: int) -> None:
        """SUBMITTING → RUNNING (or stays SUBMITTING while the executor queues the job); back
        to PREPARED, to be handed over again, while the executor cannot take it yet."""
        with self.session() as (db, _):
            sub = db.get_one(AnalysisSubmission, submission_id)
            executor_name, work_dir = sub.executor, _job_dir(sub)
        executor = self.executor(executor_name)
        try:
            remote_id = executor.submit(work_dir)
        except SubmitLater as err:
            log.warning("submission %s: its executor cannot take it yet (%s)", submission_id,
                        err)
            try:
                with self.session() as (db, _):
                    self._move(db, db.get_one(AnalysisSubmission, submission_id), S.PREPARED,
                               lease_until=None)
            except Superseded:
                pass
            return
        except Exception as err:
            log.exception("submission %s could not start", submission_id)
            self.fail(submission_id, f"Could not start: {type(err).__name__}: {err}")
            return
        try:
            with self.session() as (db, _):
                if getattr(executor, "queues", False):  # RUNNING once poll says so
                    recorded = db.execute(
                        update(AnalysisSubmission).where(
                            AnalysisSubmission.id == submission_id,
                            AnalysisSubmission.state == S.SUBMITTING.value)
                        .values(remote_workflow_id=remote_id, lease_until=None,
                                modified=utcnow())
                        .execution_options(synchronize_session=False))
                    if rowcount(recorded) != 1:
                        raise Superseded(f"submission {submission_id} was cancelled")
                else:
                    sub = db.get_one(AnalysisSubmission, submission_id)
                    self._move(db, sub, S.RUNNING, remote_workflow_id=remote_id,
                               lease_until=None)
        except Superseded:  # cancelled while it was handed over: the job must not run
            log.info("submission %s was cancelled while submitted; cancelling %s",
                     submission_id, remote_id)
            try:
                executor.cancel(remote_id)
            except Exception:
                log.exception("cancelling %s of submission %s failed", remote_id,
                              submission_id)
        except Exception as err:
            log.exception("submission %s could not start", submission_id)
            self.fail(submission_id, f"Could not start: {type(err).__name__}: {err}")

    def _job(self, db: Session, sub: AnalysisSubmission, analysis_type: Any,
             work_dir: Path, reads_urls: bool = False) -> dict[str, Any]:
        """The job's description; its input files are where they are stored in a local
        directory, copies staged into ``work_dir/inputs`` from an object store, or, for an
        executor that reads URLs (``reads_urls``: the WES executor), signed URLs of the store
        in ``urls`` (valid ``seqcore.analysis.input_url_hours``) and no copies."""
        kinds = {k.name: k for k in self.registry.get("seqcore.file_kinds", {}).values()}
        inputs = []
        for link in sub.inputs:
            obj = db.get_one(SequencingObject, link.object_id)
            kind = kinds.get(obj.kind)
            files = (kind.pipeline_files(db, obj) if kind is not None and
                     kind.pipeline_files is not None else obj.files)
            sample = db.get_one(Sample, obj.sample_id)
            item: dict[str, Any] = {"object_id": obj.id, "kind": obj.kind,
                                    "sample_id": sample.id, "sample_name": sample.name}
            if reads_urls and not self.storage.is_local:
                seconds = int(float(self.settings["seqcore.analysis.input_url_hours"]) * 3600)
                item["urls"] = [self.storage.signed_url(f.path, "GET", seconds) for f in files]
                item["files"] = []
            else:
                item["files"] = [str(self.storage.stage(f.path, work_dir / "inputs"))
                                 for f in files]
            inputs.append(item)
        schema = {p.name for p in analysis_type.parameters}
        typed, _ = check_parameters(analysis_type, {k: v for k, v in sub.parameters.items()
                                                    if k in schema})
        data: dict[str, Any] = {}
        if analysis_type.job_data is not None:  # what the type needs beyond inputs
            data = dict(analysis_type.job_data(JobSource(
                db=db, storage=self.storage, settings=self.settings, submission=sub,
                work_dir=work_dir)) or {})
        settings = {name: self.settings.get(name) for name in analysis_type.settings}
        # Every job gets the tool environments' directory, resolved here: a job runs with
        # its work directory as the current one, where a relative path (the default
        # var/tools) would name an empty directory, and ensure_tool_environment(env,
        # ctx.settings) would install the tool again for every job instead of using the one
        # `seqcore tools install` made.
        settings[TOOL_ENVIRONMENTS] = str(environments_root(self.settings))
        return {"submission_id": sub.id, "analysis_type": analysis_type.name,
                "pipeline": analysis_type.pipeline, "parameters": typed, "inputs": inputs,
                "threads": int(self.settings["seqcore.analysis.threads"]),
                "settings": settings, "data": data, "request_id": sub.request_id,
                # The job's process continues the trace (the span current here, which
                # continues the launch's), exporting where this process does.
                "traceparent": tracing.traceparent(), "traces": tracing.job_settings()}

    def advance(self) -> int:
        """Poll running jobs; collect finished ones; write back; complete."""
        moved = 0
        with self.session() as (db, _):
            running = [(s.id, s.executor, s.remote_workflow_id, s.work_dir, s.request_id)
                       for s in db.scalars(select(AnalysisSubmission).where(or_(
                           AnalysisSubmission.state == S.RUNNING.value,
                           (AnalysisSubmission.state == S.SUBMITTING.value)
                           & AnalysisSubmission.remote_workflow_id.is_not(None)
                           & AnalysisSubmission.lease_until.is_(None)), self._mine()))]
            # Collecting reads the work directory (the owner's); writing back, the store.
            ready = list(db.scalars(select(AnalysisSubmission.id).where(or_(
                (AnalysisSubmission.state == S.FINISHED_RUNNING.value) & self._mine(),
                AnalysisSubmission.state == S.TRANSFERRED.value),
                AnalysisSubmission.lease_until.is_(None))))
        for submission_id, executor, remote_id, work_dir, origin in running:
            with requestid.bound(origin):
                moved += self._poll(submission_id, executor, remote_id, work_dir, ready)
        for submission_id in ready:
            self.finish(submission_id)
            moved += 1
        return moved

    def _poll(self, submission_id: int, executor: str | None, remote_id: str | None,
              work_dir: str | None, ready: list[int]) -> int:
        """Ask the executor about one running (or queued) job; 1 if the submission moved."""
        try:
            if remote_id is None or work_dir is None:  # set when it was handed over
                raise RuntimeError(f"submission {submission_id} was never handed over")
            status = self.executor(executor).poll(remote_id, Path(work_dir))
        except Exception as err:
            log.exception("polling submission %s failed", submission_id)
            self.fail(submission_id, f"The executor could not be asked: {err}")
            return 1
        if status.state == "queued":
            return 0
        if status.state == "running":
            return self._started_running(submission_id)
        if status.state == "lost":
            self._requeue(submission_id, status.detail)
        elif status.result.get("status") == "ok":
            try:
                with self.session() as (db, _):
                    self._started_running(submission_id, db)
                    sub = db.get_one(AnalysisSubmission, submission_id)
                    self._move(db, sub, S.FINISHED_RUNNING)
            except Superseded:
                return 1  # cancelled meanwhile: its outputs are not collected
            ready.append(submission_id)
        else:
            self.fail(submission_id, status.result.get("error") or "The pipeline failed.")
        return 1

    def _started_running(self, submission_id: int, db: Session | None = None) -> int:
        """A job its executor had queued runs now: SUBMITTING → RUNNING (1 if it moved)."""
        if db is None:
            try:
                with self.session() as (own, _):
                    return self._started_running(submission_id, own)
            except Superseded:
                return 0
        sub = db.get_one(AnalysisSubmission, submission_id)
        if sub.state != S.SUBMITTING:
            return 0
        self._move(db, sub, S.RUNNING)
        return 1

    def _requeue(self, submission_id: int, detail: str) -> None:
        try:
            with self.session() as (db, _):
                sub = db.get_one(AnalysisSubmission, submission_id)
                attempts = sub.attempts + 1
                if attempts >= self.max_attempts:
                    self._move(db, sub, S.ERROR, attempts=attempts, error=(
                        f"The job was lost {attempts} times ({detail}); giving up."))
                else:
                    log.warning("submission %s: job lost (%s); starting it again", sub.id,
                                detail)
                    self._move(db, sub, S.NEW, attempts=attempts)
        except Superseded:
            pass  # cancelled meanwhile

    def finish(self, submission_id: int) -> None:
        """FINISHED_RUNNING → COMPLETING → [TRANSFERRED → POST_PROCESSING →] COMPLETED."""
        with self._continued(submission_id, "analysis.finish"), self._seen_meanwhile():
            self._finish(submission_id)

    def _finish(self, submission_id: int) -> None:
        try:
            with self.session() as (db, _):
                sub = db.get_one(AnalysisSubmission, submission_id)
                state = S(sub.state)
            if state == S.FINISHED_RUNNING:
                if not self._claim(submission_id, S.FINISHED_RUNNING, S.COMPLETING):
                    return
                self._collect(submission_id)
                with self.session() as (db, _):
                    sub = db.get_one(AnalysisSubmission, submission_id)
                    if sub.update_samples:
                        self._move(db, sub, S.TRANSFERRED, lease_until=None)
                    else:
                        self._move(db, sub, S.COMPLETED, lease_until=None)
                        return
            if not self._claim(submission_id, S.TRANSFERRED, S.POST_PROCESSING):
                return
            with self.session() as (db, manager):
                sub = db.get_one(AnalysisSubmission, submission_id)
                analysis_type = self.analyses.type(sub.analysis_type)
                if analysis_type is not None and analysis_type.write_back is not None:
                    from seqcore.analysis.results import WriteBack

                    analysis_type.write_back(WriteBack(
                        db=db, manager=manager, storage=self.storage, submission=sub,
                        outputs={o.key: o.file for o in sub.outputs}))
                self._move(db, sub, S.COMPLETED, lease_until=None)
        except Superseded:
            log.info("submission %s was cancelled while it completed", submission_id)
        except Exception as err:
            log.exception("submission %s could not complete", submission_id)
            self.fail(submission_id, f"Could not complete: {type(err).__name__}: {err}")

    def _collect(self, submission_id: int) -> None:
        """Copy the job's outputs into storage (replacing any partial earlier attempt)."""
        from seqcore.analysis.pipeline import read_result

        with self.session() as (db, manager):
            sub = db.get_one(AnalysisSubmission, submission_id)
            result = read_result(_job_dir(sub)) or {"outputs": {}}
            declared = self.analyses.output_keys(sub.analysis_type)
            old_paths = [o.file.path for o in sub.outputs]
            for output in list(sub.outputs):
                db.delete(output.file)
                sub.outputs.remove(output)
            db.flush()
            self.storage.remove_after_commit(old_paths, manager)
            for key, path in sorted(result["outputs"].items()):
                rel = declared.get(key)
                file_name = rel.file_name if rel is not None else Path(path).name
                relative, digest, size = self.storage.store_file(Path(path), file_name,
                                                                 manager)
                stored = SequenceFile(path=relative, file_name=file_name, size=size,
                                      upload_sha256=digest)
                sub.outputs.append(AnalysisOutput(key=key, file=stored))
            db.flush()
            # The outputs are the workflow execution's attachments (GraphQL); the earlier
            # attempt's went with their files.
            attach_files(db, [o.file for o in sub.outputs], submission_id=sub.id)
            sub.lease_until = utcnow() + self.lease
            db.flush()

    def cleanup(self) -> None:
        """Remove work directories of finished submissions older than the configured age."""
        days = self.settings.get("seqcore.analysis.cleanup_days")
        if days in (None, ""):
            return
        cutoff = utcnow() - timedelta(days=float(days))
        with self.session() as (db, _):
            due = list(db.scalars(select(AnalysisSubmission.id).where(
                AnalysisSubmission.state.in_([S.COMPLETED.value, S.ERROR.value]),
                AnalysisSubmission.cleaned_state == CleanedState.NOT_CLEANED.value,
                AnalysisSubmission.created <= cutoff,
                self._mine())))  # another worker's directory is on its own machine
        for submission_id in due:
            with self.session() as (db, _):
                result = db.execute(update(AnalysisSubmission).where(
                    AnalysisSubmission.id == submission_id,
                    AnalysisSubmission.cleaned_state == CleanedState.NOT_CLEANED.value)
                    .values(cleaned_state=CleanedState.CLEANING.value))
                if rowcount(result) != 1:
                    continue
                work_dir = db.get_one(AnalysisSubmission, submission_id).work_dir
            state = CleanedState.CLEANED
            try:
                if work_dir:
                    shutil.rmtree(work_dir, ignore_errors=False)
            except FileNotFoundError:
                pass
            except OSError:
                log.exception("cleaning submission %s failed", submission_id)
                state = CleanedState.CLEANING_ERROR
            with self.session() as (db, _):
                db.get_one(AnalysisSubmission, submission_id).cleaned_state = state.value
