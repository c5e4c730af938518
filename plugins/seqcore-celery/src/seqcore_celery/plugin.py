"""The ``celery`` executor."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seqcore.plugin import (
    Executor,
    JobStatus,
    ReadinessCheck,
    Setting,
    hookimpl,
    read_result,
    trace_span,
)
from seqcore_celery.app import TASK, make_app


class CeleryExecutor:
    """Submits each job as a Celery task on ``seqcore.celery.queue``; the job directory's
    ``result.json`` says when it is done, so polling works with any broker and backend."""

    name = "celery"

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.queue = settings["seqcore.celery.queue"]
        self.app = make_app(settings["seqcore.celery.broker_url"],
                            settings["seqcore.celery.result_backend"] or None)

    def submit(self, work_dir: Path) -> str:
        # The task's run continues the launch's trace from job.json; this is the hand-over.
        with trace_span(f"celery.send {TASK}", {"messaging.system": "celery",
                                                "messaging.destination.name": self.queue},
                        kind="producer"):
            result = self.app.send_task(TASK, args=[str(work_dir)], queue=self.queue)
        return f"celery:{result.id}"

    def poll(self, remote_id: str, work_dir: Path) -> JobStatus:
        result = read_result(work_dir)
        if result is not None:
            return JobStatus("done", result)
        if self.app.conf.result_backend:
            state = self.app.AsyncResult(remote_id.split(":", 1)[1]).state
            if state == "FAILURE":
                return JobStatus("lost", detail="the Celery task failed without a result")
        return JobStatus("running")

    def cancel(self, remote_id: str) -> None:
        self.app.control.revoke(remote_id.split(":", 1)[1], terminate=True)


@hookimpl
def register_executors() -> list[Executor]:
    return [Executor("celery", CeleryExecutor)]


def broker_reachable(settings: Mapping[str, Any]) -> None:
    """``/-/ready``'s check: when analyses go to Celery, its broker must take a connection
    (within a few seconds)."""
    if settings.get("seqcore.analysis.executor") != "celery":
        return
    from kombu import Connection

    with Connection(settings["seqcore.celery.broker_url"], connect_timeout=3) as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, timeout=3)


@hookimpl
def register_readiness_checks() -> list[ReadinessCheck]:
    return [ReadinessCheck("broker", broker_reachable)]


@hookimpl
def register_settings() -> list[Setting]:
    return [
        Setting("seqcore.celery.broker_url", "redis://127.0.0.1:6379/0",
                "Celery broker: redis://host:6379/0 or amqp://user:password@host:5672//.",
                required=True),
        Setting("seqcore.celery.result_backend", "",
                "Optional Celery result backend (results come back through the job "
                "directory either way)."),
        Setting("seqcore.celery.queue", "seqcore", "The queue analyses are sent to.",
                required=True),
    ]
