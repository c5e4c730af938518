"""The Celery worker's application: ``celery -A seqcore_celery.worker worker -Q seqcore``.

The broker comes from ``SEQCORE_CELERY_BROKER_URL`` (or the ini named by
``SEQCORE_CONFIG``), the same setting seqcore's own workers use to submit.
"""

from __future__ import annotations

import os
from typing import Any

from seqcore_celery.app import make_app


def _settings() -> dict[str, Any]:
    """The plugin's settings, read as the application reads them (environment, then the
    ini file, then the declared default) and parsed by the same declarations."""
    from seqcore.plugin import process_settings
    from seqcore_celery.plugin import register_settings

    ini = os.environ.get("SEQCORE_CONFIG")
    return process_settings("plugin celery", register_settings(),
                            ini if ini and os.path.exists(ini) else None)


_config = _settings()
app = make_app(_config["seqcore.celery.broker_url"],
               _config["seqcore.celery.result_backend"] or None)
