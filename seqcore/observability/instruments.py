"""The Prometheus instruments that code updates as things happen.

Counters and histograms live in the process that observes them (a web server's worker
process, ``seqcore worker``); under gunicorn, ``PROMETHEUS_MULTIPROC_DIR`` makes every
process write its values to files there, and ``GET /-/metrics`` adds them up
(:mod:`seqcore.observability.metrics`). What the database knows (queue depth and age,
analyses by state) is counted when scraped instead, so it is right however many processes
run.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

# Seconds; from a fast JSON answer to a long upload.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                   300.0)
# Seconds; QC of a small file to an assembly of a large genome.
JOB_BUCKETS = (0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0,
               86400.0)

REQUESTS = Counter("seqcore_http_requests", "HTTP requests answered, by route and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("seqcore_http_request_duration_seconds",
                    "Time from receiving a request to the end of sending its response, by route.",
                    ["route", "method"], buckets=LATENCY_BUCKETS)
UPLOAD_BYTES = Counter("seqcore_upload_bytes", "Bytes of uploaded files kept in storage.")
UPLOAD_FILES = Counter("seqcore_upload_files", "Uploaded files kept in storage.")
QC_DURATION = Histogram("seqcore_qc_duration_seconds", "Time the QC engine took for one file.",
                        buckets=JOB_BUCKETS)
PROCESSING_DURATION = Histogram(
    "seqcore_processing_duration_seconds",
    "Time a worker took to process one sequencing object, by outcome.", ["outcome"],
    buckets=JOB_BUCKETS)
ANALYSIS_DURATION = Histogram(
    "seqcore_analysis_duration_seconds",
    "Time from an analysis' submission to its end (COMPLETED or ERROR), by type and state.",
    ["type", "state"], buckets=JOB_BUCKETS)
HEARTBEAT = Gauge("seqcore_worker_heartbeat_timestamp_seconds",
                  "When each worker last looked at its queues (Unix time).", ["worker"],
                  multiprocess_mode="max")


def after_commit(tm: Any, action: Any, *args: Any) -> None:
    """Run ``action(*args)`` only if ``tm``'s current transaction commits (counting what
    was really kept, not what a failed request rolled back)."""

    def hook(committed: bool, *hook_args: Any) -> None:
        if committed:
            action(*hook_args)

    tm.get().addAfterCommitHook(hook, args=args)


def count_upload(size: int) -> None:
    UPLOAD_FILES.inc()
    UPLOAD_BYTES.inc(size)


def heartbeat(worker: str) -> None:
    HEARTBEAT.labels(worker=worker).set(time.time())
