"""The Celery application and its one task: run a seqcore job directory.

The task runs the job with the id of the request that launched the submission (from
``job.json``) made current, so the job's log lines in the Celery worker's log name it.

Job directories live under ``seqcore.analysis.work_path``, which the Celery workers must see
at the same path (a shared file system); the task reads ``job.json`` and writes
``result.json`` there, and seqcore's own worker collects the outputs into storage.
"""

from __future__ import annotations

from celery import Celery

from seqcore.plugin import run_job

TASK = "seqcore.run_job"


def make_app(broker_url: str, result_backend: str | None = None) -> Celery:
    app = Celery("seqcore", broker=broker_url, backend=result_backend)
    app.conf.update(
        task_acks_late=True,  # a worker that dies mid-job hands the job back to the queue
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # jobs are long: take one at a time
        task_track_started=True,
        broker_connection_retry_on_startup=True,
    )

    @app.task(name=TASK)
    def run(work_dir: str) -> str:
        return run_job(work_dir)["status"]

    return app
