"""``GET /-/metrics``: Prometheus' text format, for the networks or the token the settings
allow.

Two sources make one answer. Instruments (:mod:`.instruments`) count what happens in a
process: requests by route, method and status with latency histograms, uploaded bytes, QC,
processing and analysis durations, worker heartbeats. Under gunicorn each worker process
counts its own; with ``PROMETHEUS_MULTIPROC_DIR`` set (before the server starts, the same
directory for every process of the deployment on this machine, emptied at start) they write
to files there and this view adds every process's values up. What the database knows is
counted when scraped: sequencing objects waiting or being processed (by state) and the age
of the oldest, analyses by state and type and the age of the oldest waiting one.

Access: a client whose address is in ``seqcore.metrics.allow`` (default loopback only), or
one that sends ``Authorization: Bearer <seqcore.metrics.token>`` when a token is set. Others
get 401 when a token could admit them, 403 when nothing could. A request relayed by a reverse
proxy (``X-Forwarded-For``) counts as from the client the proxy names only when the proxy is
in ``seqcore.trusted_proxies``; relayed by any other proxy it is from nowhere allowed (a
proxy on loopback must not make every visitor local).
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import func, select

from seqcore.db import utcnow
from seqcore.models.analysis import AnalysisState, AnalysisSubmission
from seqcore.models.sequencing import ProcessingState, SequencingObject
from seqcore.security.proxies import is_trusted, parse_networks
from seqcore.services import ISessionFactory, registry_service

log = logging.getLogger(__name__)

METRICS_PATH = "/-/metrics"
# The classic text format, which every Prometheus version (and most other scrapers) reads;
# generate_latest writes it.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PEER_KEY = "seqcore.peer"
FORWARDED_KEY = "seqcore.forwarded"
WAITING = (ProcessingState.UNPROCESSED.value, ProcessingState.QUEUED.value,
           ProcessingState.PROCESSING.value)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class DatabaseCollector:
    """Queue and analysis figures read from the database at each scrape."""

    def __init__(self, session_factory: Any) -> None:
        self.session_factory = session_factory

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = utcnow()
        with self.session_factory() as db:
            by_state = dict(db.execute(
                select(SequencingObject.processing_state, func.count())
                .where(SequencingObject.processing_state.in_(WAITING))
                .group_by(SequencingObject.processing_state)).all())
            oldest_object = db.scalar(select(func.min(SequencingObject.created)).where(
                SequencingObject.processing_state.in_(WAITING)))
            analyses = db.execute(
                select(AnalysisSubmission.state, AnalysisSubmission.analysis_type,
                       func.count())
                .group_by(AnalysisSubmission.state, AnalysisSubmission.analysis_type)).all()
            oldest_analysis = db.scalar(select(func.min(AnalysisSubmission.created)).where(
                AnalysisSubmission.state == AnalysisState.NEW.value))
        depth = GaugeMetricFamily(
            "seqcore_processing_queue_depth",
            "Sequencing objects waiting for or in processing, by state.", labels=["state"])
        for state in WAITING:
            depth.add_metric([state], by_state.get(state, 0))
        yield depth
        yield GaugeMetricFamily(
            "seqcore_processing_queue_oldest_age_seconds",
            "Age of the oldest sequencing object not processed yet (0: none).",
            value=_age(now, oldest_object))
        states = GaugeMetricFamily("seqcore_analyses", "Analysis submissions by state and type.",
                                   labels=["state", "type"])
        for state, analysis_type, count in analyses:
            states.add_metric([state, analysis_type], count)
        yield states
        yield GaugeMetricFamily(
            "seqcore_analysis_queue_oldest_age_seconds",
            "Age of the oldest analysis submission waiting to start (0: none).",
            value=_age(now, oldest_analysis))


def _age(now: datetime, then: datetime | None) -> float:
    if then is None:
        return 0.0
    if then.tzinfo is None:  # SQLite hands back naive UTC
        then = then.replace(tzinfo=UTC)
    return max(0.0, (now - then).total_seconds())


def exposition(session_factory: Any) -> bytes:
    """The whole text exposition: the processes' instruments, then the database's figures."""
    if multiprocess_dir():
        processes = CollectorRegistry()
        MultiProcessCollector(processes)
    else:
        processes = REGISTRY
    database = CollectorRegistry(auto_describe=False)
    database.register(DatabaseCollector(session_factory))
    try:
        figures = generate_latest(database)
    except Exception:  # the processes' figures are still worth having; /-/ready says why
        log.warning("metrics: the database's figures could not be read", exc_info=True)
        figures = b""
    return generate_latest(processes) + figures


def _bearer(request: Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def allowed(request: Request) -> int:
    """200 when the client may read the metrics, else the status to refuse with."""
    settings = request.registry.settings
    token = settings.get("seqcore.metrics.token") or ""
    sent = _bearer(request)
    if token and sent is not None and hmac.compare_digest(sent.encode(), token.encode()):
        return 200
    networks = request.registry["seqcore.metrics.networks"]
    trusted = request.registry["seqcore.metrics.proxies"]
    relayed = request.environ.get(FORWARDED_KEY, False)
    peer = request.environ.get(PEER_KEY, request.remote_addr)
    from_allowed = (is_trusted(request.remote_addr, networks)
                    and (not relayed or is_trusted(peer, trusted)))
    if from_allowed:
        return 200
    return 401 if token else 403


def metrics(request: Request) -> Response:
    status = allowed(request)
    if status == 401:
        response = Response("A bearer token is required.\n", status=401,
                            content_type="text/plain", charset="utf-8")
        response.headers["WWW-Authenticate"] = 'Bearer realm="seqcore metrics"'
        return response
    if status == 403:
        return Response("Metrics are not served to this address.\n", status=403,
                        content_type="text/plain", charset="utf-8")
    body = exposition(registry_service(request.registry, ISessionFactory))
    response = Response(body=body, status=200)
    response.headers["Content-Type"] = CONTENT_TYPE
    response.cache_control.no_store = True
    return response


def includeme(config: Configurator) -> None:
    settings = config.get_settings()
    config.registry["seqcore.metrics.networks"] = parse_networks(
        str(settings.get("seqcore.metrics.allow", "")))
    config.registry["seqcore.metrics.proxies"] = parse_networks(
        str(settings.get("seqcore.trusted_proxies", "")))
    config.add_route("ops.metrics", METRICS_PATH)
    config.add_view(metrics, route_name="ops.metrics", request_method=("GET", "HEAD"))
