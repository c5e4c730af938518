"""Analyses on workers that share no directory: a job belongs to the worker that prepared it
(its work directory is on that worker's machine), only that worker follows it, and another
takes it over, preparing it again, once the owner has not been seen for a lease."""

import os
import signal
import time
from pathlib import Path

import pytest

from seqcore.analysis.worker import AnalysisWorker, owner_name
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.project import ProjectRole
from seqcore.testing.server import start_worker
from seqcore.testing.uploads import fastq

LAUNCH = "/api/analysisSubmissions/analysisType/readcount"
PLUGINS = {"seqcore.plugins.enabled": "sequencefiles",
           "seqcore.plugins.modules": "tests.plugins.readcount"}


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, members=[
        (factories.user(username="member"), ProjectRole.USER)])
    pairs = []
    for n in range(4):
        sample = factories.sample(project, name=f"isolate-{n}")
        pairs.append(factories.sequencing_object(sample, "pairs", files=[
            (f"s{n}_R1.fastq", fastq(reads=30, length=50, seed=n)),
            (f"s{n}_R2.fastq", fastq(reads=30, length=70, seed=n + 10))]))
    return {"pairs": pairs, "headers": factories.headers(owner)}


def launch(testapp, world, pair, **parameters):
    body = testapp.post_json(LAUNCH, {"sequencingObjects": [pair.id],
                                      "parameters": parameters},
                             headers=world["headers"], status=201).json
    return int(body["resource"]["identifier"])


def worker_on(app_config, root: Path) -> AnalysisWorker:
    """An analysis worker whose work directory is ``root`` (its own machine's, in effect)."""
    worker = AnalysisWorker(app_config.registry)
    worker.work_root = root.resolve()
    worker.owner = owner_name({}, worker.work_root)
    return worker


def _wait(db, submission_ids, states, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        db.expire_all()
        subs = [db.get(AnalysisSubmission, i) for i in submission_ids]
        if all(sub.state in states for sub in subs):
            return subs
        time.sleep(0.2)
    raise AssertionError(f"submissions stuck in {[s.state for s in subs]}")


def test_only_the_owner_follows_its_job(testapp, app_config, world, db, tmp_path):
    first = worker_on(app_config, tmp_path / "first")
    second = worker_on(app_config, tmp_path / "second")
    assert first.owner != second.owner
    submission_id = launch(testapp, world, world["pairs"][0])
    first.schedule()
    sub = db.get(AnalysisSubmission, submission_id)
    db.refresh(sub)
    assert sub.owner == first.owner and sub.owner_seen is not None
    assert Path(sub.work_dir).parent == first.work_root
    # The other worker's rounds leave it alone while the owner is seen: no poll, no
    # collection, no takeover, whatever the job does meanwhile.
    time.sleep(1.0)
    for _ in range(5):
        assert second.run_once() == 0
        time.sleep(0.1)
    db.refresh(sub)
    assert sub.state in ("RUNNING", "SUBMITTING") and sub.owner == first.owner
    assert not second.work_root.exists()
    first.run_until_idle(timeout=60)
    db.refresh(sub)
    assert (sub.state, sub.attempts, sub.owner) == ("COMPLETED", 0, first.owner)
    # Only the owner cleans its directory.
    for worker in (second, first):
        worker.settings = {**worker.settings, "seqcore.analysis.cleanup_days": "0"}
    second.cleanup()
    db.refresh(sub)
    assert sub.cleaned_state == "NOT_CLEANED" and Path(sub.work_dir).is_dir()
    first.cleanup()
    db.refresh(sub)
    assert sub.cleaned_state == "CLEANED" and not Path(sub.work_dir).exists()


def test_an_owner_not_seen_for_a_lease_has_its_job_prepared_again(testapp, app_config, world,
                                                                   db, tmp_path):
    first = worker_on(app_config, tmp_path / "first")
    second = worker_on(app_config, tmp_path / "second")
    submission_id = launch(testapp, world, world["pairs"][0], sleep=30)
    first.schedule()
    sub = db.get(AnalysisSubmission, submission_id)
    db.refresh(sub)
    remote = sub.remote_workflow_id
    # The owner stops (its machine is gone): not seen for longer than a lease.
    sub.owner_seen = sub.owner_seen - first.lease - first.lease
    db.commit()
    try:
        assert second.take_over() == 1
        db.refresh(sub)
        assert (sub.state, sub.attempts, sub.owner) == ("NEW", 1, None)
        second.run_until_idle(timeout=60)
        db.refresh(sub)
        assert (sub.state, sub.attempts, sub.owner) == ("COMPLETED", 1, second.owner)
        assert Path(sub.work_dir).parent == second.work_root
        states = [state for state, _ in sub.history]
        assert states.count("PREPARING") == 2 and states[-1] == "COMPLETED"
    finally:
        first.executor("local").cancel(remote)


def _processes(app_config, database_url, tmp_path, names, **options):
    settings = {**app_config.get_settings(), "sqlalchemy.url": database_url}
    return [start_worker(tmp_path / name, settings, **PLUGINS, **options,
                         **{"seqcore.analysis.work_path": str(tmp_path / name / "work")})
            for name in names]


def _stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=60)


def test_two_workers_with_their_own_directories_complete_every_job(
        testapp, app_config, world, db, database_url, tmp_path):
    ids = [launch(testapp, world, pair, sleep=0.5) for pair in world["pairs"]]
    workers = _processes(app_config, database_url, tmp_path, ["a", "b"])
    try:
        done = _wait(db, ids, {"COMPLETED", "ERROR"})
    finally:
        _stop(workers)
    roots = {name: (tmp_path / name / "work").resolve() for name in "ab"}
    for sub in done:
        assert sub.state == "COMPLETED", sub.error
        assert sub.attempts == 0
        # Prepared, run and collected by the worker whose directory holds it.
        root = next(r for r in roots.values() if str(r) in sub.owner)
        assert Path(sub.work_dir).parent == root


def test_a_killed_owners_job_is_taken_over_after_the_lease(testapp, app_config, world, db,
                                                           database_url, tmp_path):
    submission_id = launch(testapp, world, world["pairs"][0], sleep=3)
    options = {"seqcore.processing.lease_seconds": "2"}
    [first] = _processes(app_config, database_url, tmp_path, ["a"], **options)
    try:
        [running] = _wait(db, [submission_id], {"RUNNING"})
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    os.killpg(int(running.remote_workflow_id.split(":")[1]), signal.SIGKILL)
    first_owner = running.owner
    [second] = _processes(app_config, database_url, tmp_path, ["b"], **options)
    try:
        [done] = _wait(db, [submission_id], {"COMPLETED", "ERROR"})
    finally:
        _stop([second])
    assert done.state == "COMPLETED", done.error
    assert done.attempts == 1 and done.owner != first_owner
    assert Path(done.work_dir).parent == (tmp_path / "b" / "work").resolve()
    states = [state for state, _ in done.history]
    assert states.count("RUNNING") == 2 and states[-1] == "COMPLETED"
