"""Typed settings: the ini file first, then ``SEQCORE_*`` environment variables.

Secrets belong in the environment in production (``SEQCORE_SQLALCHEMY_URL`` overrides
``sqlalchemy.url``); every key has a documented default here so that the embedded
development setup needs nothing but ``development.ini``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def as_bool(value: Any) -> bool:
    """Read ini-style booleans (``true``, ``yes``, ``on``, ``1``)."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class CoreSetting:
    name: str
    default: Any
    type_: Callable[[Any], Any]
    doc: str


CORE_SETTINGS: tuple[CoreSetting, ...] = (
    CoreSetting("sqlalchemy.url", "sqlite:///var/seqcore.sqlite", str,
                "Database URL. SQLite (the default) or PostgreSQL (postgresql+psycopg://...)."),
    CoreSetting("seqcore.storage.path", "var/storage", str,
                "Directory where uploaded and generated files are stored."),
    CoreSetting("seqcore.plugins.disabled", "", str,
                "Plugin names (entry-point names) never to load, separated by spaces."),
    CoreSetting("seqcore.plugins.modules", "", str,
                "Dotted names of plugin modules to load besides installed distributions."),
    CoreSetting("seqcore.plugins.enabled", "", str,
                "If set, only these entry-point plugins load (an allow-list)."),
    CoreSetting("seqcore.max_body_bytes", 1_048_576, int,
                "Largest JSON request body accepted; larger bodies get 413."),
    CoreSetting("seqcore.max_form_bytes", 65_536, int,
                "Largest form body (sign-in page, token endpoint, consent form, every web "
                "form); larger is 413, refused before the body is read."),
    CoreSetting("seqcore.upload.max_bytes", 21_474_836_480, int,
                "Largest upload body (all files of one request); larger is 413."),
    CoreSetting("seqcore.upload.verify_gzip", True, as_bool,
                "Decompress gzip uploads as they arrive, refusing truncated or corrupt ones "
                "(up to seqcore.upload.verify_gzip_max_bytes); off: only the first records "
                "are checked on arrival."),
    CoreSetting("seqcore.upload.verify_gzip_max_bytes", 268_435_456, int,
                "Uploads (request bodies) larger than this have only their first records "
                "checked on arrival: inflating every byte runs at a tenth of disk speed. "
                "The processing worker reads every byte of them and marks a corrupt file "
                "ERROR. 0: no limit."),
    CoreSetting("seqcore.processing.decompress", False, as_bool,
                "Have the worker decompress gzip FASTQ into a new revision (keeping the "
                "compressed original); off: files stay as uploaded."),
    CoreSetting("seqcore.processing.lease_seconds", 120, int,
                "How long a worker's claim on an object lasts without a heartbeat; after "
                "that another worker takes it over."),
    CoreSetting("seqcore.processing.max_attempts", 3, int,
                "Times processing of an object may be interrupted before it is marked ERROR."),
    CoreSetting("seqcore.analysis.executor", "local", str,
                "The executor analyses run on: 'local' (processes on the worker's machine) "
                "or an installed executor plugin's name ('celery')."),
    CoreSetting("seqcore.analysis.max_running", 2, int,
                "How many analyses may be between PREPARING and COMPLETED at once."),
    CoreSetting("seqcore.analysis.threads", 2, int,
                "Threads a pipeline may use (keep max_running x threads within the cores)."),
    CoreSetting("seqcore.analysis.work_path", "var/work", str,
                "Directory of the analyses' work directories (shared with remote executors)."),
    CoreSetting("seqcore.analysis.cleanup_days", "", str,
                "Remove work directories of finished analyses older than this many days "
                "(fractions allowed); empty: keep them."),
    CoreSetting("seqcore.worker.embedded", False, as_bool,
                "Run a processing worker thread inside the web server (development)."),
    CoreSetting("seqcore.oauth.access_token_seconds", 43200, int,
                "Default access-token lifetime for clients registered without one."),
    CoreSetting("seqcore.oauth.refresh_token_seconds", 2592000, int,
                "Default refresh-token lifetime for clients registered without one."),
    CoreSetting("seqcore.sign_in.max_failures", 5, int,
                "Failed password checks per account (its username and e-mail address count "
                "as one), and 4x that per client address, within the window before every "
                "password door (sign-in page, OAuth password grant, consent form) refuses."),
    CoreSetting("seqcore.sign_in.window_seconds", 900, int,
                "The failed sign-in window, in seconds."),
    CoreSetting("seqcore.trusted_proxies", "", str,
                "Addresses or networks (CIDR) of reverse proxies, separated by spaces or "
                "commas. Only a request from one of them may name the client address "
                "(X-Forwarded-For), scheme (X-Forwarded-Proto) and host (X-Forwarded-Host); "
                "from anyone else those headers are ignored."),
    CoreSetting("seqcore.password_hash.time_cost", 3, int,
                "argon2 time cost for password hashes (lower only in tests)."),
    CoreSetting("seqcore.password_hash.memory_cost", 65536, int,
                "argon2 memory cost in KiB for password hashes (lower only in tests)."),
)


def env_name(key: str) -> str:
    """``sqlalchemy.url`` → ``SEQCORE_SQLALCHEMY_URL``; ``seqcore.storage.path`` →
    ``SEQCORE_STORAGE_PATH``."""
    key = key.removeprefix("seqcore.")
    return "SEQCORE_" + key.replace(".", "_").upper()


def resolve_settings(
    settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Merge defaults, ini values and environment overrides, converting core keys."""
    environ = os.environ if environ is None else environ
    merged: dict[str, Any] = dict(settings)
    for setting in CORE_SETTINGS:
        value = merged.get(setting.name, setting.default)
        value = environ.get(env_name(setting.name), value)
        merged[setting.name] = setting.type_(value)
    return merged
