"""Log output: seqcore's text or JSON lines on standard error, chosen by a setting.

``seqcore.log.format``:

* empty (the default): logging stays as the ini file's ``[loggers]``/``[handlers]``
  sections set it up; when they set up nothing, seqcore's text lines go to standard error
  (so a bare deployment still has an access log);
* ``text``: one line per record, ``time level [logger] [request id] message``;
* ``json``: one JSON object per line (``time``, ``level``, ``logger``, ``message``,
  ``request_id``, the access log's fields, ``exception``), for log collectors.

JSON is written by the standard library's ``logging`` with the small formatter below rather
than structlog: every log call of the core, of plugins, of gunicorn and of Celery already goes
through ``logging``, and a formatter reaches all of them without changing a single call.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from seqcore.observability.requestid import install_record_factory

FORMATS = ("", "text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s [%(name)s] [%(request_id)s] %(message)s"
# Attributes every LogRecord has; anything else was passed in ``extra`` and is kept.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "request_id"}
_MARK = "_seqcore_handler"


def parse_format(value: Any) -> str:
    text = str(value or "").strip().lower()
    if text not in FORMATS:
        raise ValueError("not a log format (use text or json, or leave it empty)")
    return text


parse_format.type_name = "text, json or empty"  # type: ignore[attr-defined]


class JsonFormatter(logging.Formatter):
    """One JSON object per record; fields given as ``extra`` become keys of their own."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def formatter(kind: str) -> logging.Formatter:
    return JsonFormatter() if kind == "json" else logging.Formatter(TEXT_FORMAT)


def apply(settings: Mapping[str, Any]) -> None:
    """Set up this process's logging from the settings (the web server and ``seqcore
    worker`` call it once at start-up; the tests' applications do not)."""
    install_record_factory()
    kind = parse_format(settings.get("seqcore.log.format", ""))
    root = logging.getLogger()
    if kind:
        for handler in root.handlers:
            handler.setFormatter(formatter(kind))
        if not root.handlers:
            _add_handler(root, kind)
    elif not root.handlers:
        _add_handler(root, "text")
    # seqcore's own INFO lines (workers, readiness) are part of operating it; an ini that
    # names the seqcore logger keeps its level, one that does not (or a bare
    # logging.basicConfig at WARNING) gets INFO for them.
    ours = logging.getLogger("seqcore")
    if ours.level == logging.NOTSET and ours.getEffectiveLevel() > logging.INFO:
        ours.setLevel(logging.INFO)
    if settings.get("seqcore.log.access", True):
        access = logging.getLogger("seqcore.access")
        if access.getEffectiveLevel() > logging.INFO:
            access.setLevel(logging.INFO)


def _add_handler(root: logging.Logger, kind: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(kind))
    setattr(handler, _MARK, True)
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
