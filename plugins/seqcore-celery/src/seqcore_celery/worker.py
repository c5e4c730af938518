"""The Celery worker's application: ``celery -A seqcore_celery.worker worker -Q seqcore``.

The broker comes from ``SEQCORE_CELERY_BROKER_URL`` (or the ini named by
``SEQCORE_CONFIG``), the same setting seqcore's own workers use to submit.
"""

from __future__ import annotations

import os

from seqcore_celery.app import make_app


def _settings() -> dict[str, str]:
    ini = os.environ.get("SEQCORE_CONFIG")
    if ini and os.path.exists(ini):
        from seqcore.plugin import ini_settings

        return ini_settings(ini)
    return {}


_config = _settings()
app = make_app(
    os.environ.get("SEQCORE_CELERY_BROKER_URL",
                   _config.get("seqcore.celery.broker_url", "redis://127.0.0.1:6379/0")),
    os.environ.get("SEQCORE_CELERY_RESULT_BACKEND",
                   _config.get("seqcore.celery.result_backend")) or None,
)
