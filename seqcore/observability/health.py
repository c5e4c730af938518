"""``GET /-/health`` and ``GET /-/ready``: public, for load balancers and orchestrators.

``/-/health`` answers 200 as long as the process can answer at all. ``/-/ready`` answers 200
only when a request could be served: the database answers, the storage directory takes a
new file, every migration branch (the core's and each plugin's) is at its head, and every
check a plugin registers (``register_readiness_checks``: the Celery broker) passes. Otherwise
503 naming what failed. Neither answer says more than a check's name and a word about its
outcome: no versions, paths, addresses or error texts (they go to the log, at WARNING).
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from alembic.runtime.migration import MigrationContext
from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import text

from seqcore.db.migrations import heads
from seqcore.services import IDatabaseEngine, IStorage, registry_service

log = logging.getLogger(__name__)

HEALTH_PATH = "/-/health"
READY_PATH = "/-/ready"


class NotReady(Exception):
    """A check failed; the message is the short public reason (``unreachable``)."""


def check_database(registry: Registry) -> None:
    try:
        with registry_service(registry, IDatabaseEngine).connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as err:
        raise NotReady("unreachable") from err


def check_storage(registry: Registry) -> None:
    storage = registry_service(registry, IStorage)
    root = getattr(storage, "root", None)
    if root is None:
        return
    # Straight into the root, creating nothing: a storage disk that is not mounted must
    # fail here, not be replaced by a new empty directory.
    probe = root / f".ready-{os.getpid()}-{uuid.uuid4().hex}"
    try:
        probe.write_bytes(b"ready")
        probe.unlink()
    except OSError as err:
        raise NotReady("not writable") from err


def expected_heads(registry: Registry) -> frozenset[str]:
    """The heads of every installed branch (read once: installed code does not change)."""
    cached = registry.get("seqcore.expected_heads")
    if cached is None:
        cached = frozenset(heads(registry.settings, registry.pm))
        registry["seqcore.expected_heads"] = cached
    return cached


def check_migrations(registry: Registry) -> None:
    try:
        with registry_service(registry, IDatabaseEngine).connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except Exception as err:
        raise NotReady("unknown (the database cannot be read)") from err
    if current != set(expected_heads(registry)):
        raise NotReady("not at head (run seqcore db upgrade)")


CORE_CHECKS: tuple[tuple[str, Callable[[Registry], None]], ...] = (
    ("database", check_database),
    ("storage", check_storage),
    ("migrations", check_migrations),
)


def _contributed_check(check: Any, registry: Registry) -> None:
    """A plugin's readiness check, asked with the application's settings."""
    check.check(registry.settings)


def run_checks(registry: Registry) -> dict[str, str]:
    """Every check's outcome: ``ok`` or its short public reason."""
    checks: list[tuple[str, Callable[[Registry], None]]] = list(CORE_CHECKS)
    for registered in registry.pm.hook.register_readiness_checks():
        for check in registered or ():
            checks.append((check.name, partial(_contributed_check, check)))
    outcome: dict[str, str] = {}
    for name, check in checks:
        try:
            check(registry)
        except NotReady as err:
            log.warning("readiness: %s %s", name, err, exc_info=err.__cause__ is not None)
            outcome[name] = str(err)
        except Exception:
            log.warning("readiness: %s failed", name, exc_info=True)
            outcome[name] = "failed"
        else:
            outcome[name] = "ok"
    return outcome


def _answer(status: int, body: dict[str, Any]) -> Response:
    response = Response(json_body=body, status=status, content_type="application/json",
                        charset="utf-8")
    response.cache_control.no_store = True
    return response


def health(request: Request) -> Response:
    return _answer(200, {"status": "ok"})


def ready(request: Request) -> Response:
    outcome = run_checks(request.registry)
    failed = [name for name, result in outcome.items() if result != "ok"]
    if failed:
        return _answer(503, {"status": "unavailable", "failed": failed, "checks": outcome})
    return _answer(200, {"status": "ready", "checks": outcome})


def includeme(config: Configurator) -> None:
    config.add_route("ops.health", HEALTH_PATH)
    config.add_route("ops.ready", READY_PATH)
    config.add_view(health, route_name="ops.health", request_method=("GET", "HEAD"))
    config.add_view(ready, route_name="ops.ready", request_method=("GET", "HEAD"))
