"""Typed settings: one declaration per key, resolved once when the application starts.

Every key the core or a plugin reads is a :class:`seqcore.framework.contrib.Setting` (name, default,
documentation, parser, required flag): the core's are :data:`CORE_SETTINGS` here (the web
pages' and GraphQL's included), a plugin's come from its ``register_settings`` hook.
:func:`resolve_declared` reads each from, in order of precedence, its ``SEQCORE_*``
environment variable (``sqlalchemy.url`` → ``SEQCORE_SQLALCHEMY_URL``), the ini file and its
default, parses it, and puts the typed value into the application's settings
(``registry.settings``), where code reads it without converting again.

A value its parser refuses, or a required key left empty, stops the start-up with a
:class:`SettingError` that names the key, the value and where the value came from.
Secrets belong in the environment in production; every key has a default that suits the
embedded development setup, so ``development.ini`` needs little.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyramid.exceptions import ConfigurationError

from seqcore.framework.contrib import Setting
from seqcore.ncbi.vocabulary import vocabulary_setting
from seqcore.observability.logconfig import parse_format
from seqcore.observability.tracing import parse_ratio

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off", ""})


def as_bool(value: Any) -> bool:
    """Read ini-style booleans (``true``/``false``, ``yes``/``no``, ``on``/``off``,
    ``1``/``0``); anything else is a mistake worth stopping for."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValueError("not a boolean (use true or false)")


as_bool.type_name = "boolean"  # type: ignore[attr-defined]


def as_networks(value: Any) -> str:
    """Addresses or CIDR networks separated by spaces or commas; a bad one stops start-up.
    The text is kept; users parse it with ``ipaddress`` where they need it."""
    text = str(value or "")
    for item in text.replace(",", " ").split():
        ipaddress.ip_network(item, strict=False)
    return text


as_networks.type_name = "networks"  # type: ignore[attr-defined]


def non_negative_int(value: Any) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must be 0 or more")
    return number


def positive_int(value: Any) -> int:
    number = int(value)
    if number < 1:
        raise ValueError("must be 1 or more")
    return number


def as_backend(value: Any) -> str:
    """A storage backend's name (``seqcore.storage.backend``)."""
    text = str(value).strip().lower()
    if text not in ("local", "s3", "azure"):
        raise ValueError("not local, s3 or azure")
    return text


as_backend.type_name = "local | s3 | azure"  # type: ignore[attr-defined]


def as_download_mode(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in ("redirect", "stream"):
        raise ValueError("not redirect or stream")
    return text


as_download_mode.type_name = "redirect | stream"  # type: ignore[attr-defined]


CORE_SETTINGS: tuple[Setting, ...] = (
    Setting("sqlalchemy.url", "sqlite:///var/seqcore.sqlite",
            "Database URL. SQLite (the default) or PostgreSQL (postgresql+psycopg://...).",
            required=True),
    Setting("seqcore.storage.path", "var/storage",
            "Directory where uploaded and generated files are stored (with an object-store "
            "backend: the scratch directory for staged copies).", required=True),
    Setting("seqcore.storage.backend", "local",
            "Where stored files live: 'local' (seqcore.storage.path), 's3' (an "
            "S3-compatible bucket) or 'azure' (an Azure Blob container). "
            "docs/operations.md, Storage backends.", as_backend),
    Setting("seqcore.storage.bucket", "",
            "The S3 bucket or Azure container of the s3 and azure backends (it must exist)."),
    Setting("seqcore.storage.endpoint", "",
            "The object store's URL (MinIO, Ceph, Azurite...); empty: AWS S3, or the Azure "
            "account's own blob endpoint."),
    Setting("seqcore.storage.region", "us-east-1", "The S3 region (the s3 backend)."),
    Setting("seqcore.storage.access_key_id", "",
            "S3 access key id, or the Azure storage account name; empty: taken from the "
            "environment as the store's own tools take it (AWS_ACCESS_KEY_ID, "
            "AZURE_STORAGE_ACCOUNT_NAME...)."),
    Setting("seqcore.storage.secret_access_key", "",
            "S3 secret access key, or the Azure storage account key (keep it in the "
            "environment: SEQCORE_STORAGE_SECRET_ACCESS_KEY)."),
    Setting("seqcore.storage.signed_url_seconds", 900,
            "How long a signed URL of the object store (a download's redirect, a direct "
            "upload's PUT) stays valid.", positive_int),
    Setting("seqcore.storage.downloads", "redirect",
            "How file downloads are answered with an object-store backend: 'redirect' (303 "
            "to a signed URL of the store: the bytes never pass through seqcore) or "
            "'stream' (seqcore reads the object and sends it). A request with ?stream=1 is "
            "streamed either way.", as_download_mode),
    Setting("seqcore.tools.path", "var/tools",
            "Directory of the tool environments: virtualenvs of their own for tools that pin "
            "old libraries (seqcore tools install). Readiness, which has no ini file, reads "
            "SEQCORE_TOOLS_PATH: set it there when not the default."),
    Setting("seqcore.plugins.disabled", "",
            "Plugin names (entry-point names) never to load, separated by spaces."),
    Setting("seqcore.plugins.modules", "",
            "Dotted names of plugin modules to load besides installed distributions."),
    Setting("seqcore.plugins.enabled", "",
            "If set, only these entry-point plugins load (an allow-list)."),
    Setting("seqcore.max_body_bytes", 16 * 1_048_576,
            "Largest JSON (or sheet) request body accepted; larger bodies get 413. Sized for "
            "real metadata: thousands of fields per sample, a line list of thousands of "
            "samples in one PUT.", int),
    Setting("seqcore.max_form_bytes", 65_536,
            "Largest form body (sign-in page, token endpoint, consent form, every web "
            "form); larger is 413, refused before the body is read. The spreadsheet import "
            "page's and the upload areas' file forms take seqcore.max_body_bytes instead.",
            int),
    Setting("seqcore.upload.max_bytes", 21_474_836_480,
            "Largest upload body (all files of one request); larger is 413.", int),
    Setting("seqcore.upload.verify_gzip", True,
            "Decompress gzip uploads as they arrive, refusing truncated or corrupt ones "
            "(up to seqcore.upload.verify_gzip_max_bytes); off: only the first records "
            "are checked on arrival.", as_bool),
    Setting("seqcore.upload.verify_gzip_max_bytes", 268_435_456,
            "Uploads (request bodies) larger than this have only their first records "
            "checked on arrival: inflating every byte runs at a tenth of disk speed. "
            "The processing worker reads every byte of them and marks a corrupt file "
            "ERROR. 0: no limit.", int),
    Setting("seqcore.upload.max_pending_direct_uploads", 1000,
            "How many GraphQL direct uploads one account may hold announced and not yet "
            "attached; createDirectUpload beyond it is refused until some are attached or "
            "swept (seqcore.upload.unattached_hours).", int),
    Setting("seqcore.web.upload_direct_bytes", 8 * 1_048_576,
            "The pages' upload areas send a pair or file larger than this (and any larger "
            "than seqcore.max_body_bytes allows a form) through the direct-upload path "
            "rather than in the page's form.", int),
    Setting("seqcore.upload.unattached_hours", 24.0,
            "GraphQL direct uploads not attached this many hours after they were announced "
            "are deleted with their bytes by the worker (IRIDA Next's unattached blob "
            "cleanup).", float),
    Setting("seqcore.processing.decompress", False,
            "Have the worker decompress gzip FASTQ into a new revision (keeping the "
            "compressed original); off: files stay as uploaded.", as_bool),
    Setting("seqcore.processing.lease_seconds", 120,
            "How long a worker's claim on an object lasts without a heartbeat; after "
            "that another worker takes it over.", int),
    Setting("seqcore.processing.max_attempts", 3,
            "Times processing of an object may be interrupted before it is marked ERROR.",
            int),
    Setting("seqcore.analysis.executor", "local",
            "The executor analyses run on: 'local' (processes on the worker's machine) "
            "or an installed executor plugin's name ('celery')."),
    Setting("seqcore.analysis.max_running", 2,
            "How many analyses may be between PREPARING and COMPLETED at once.", int),
    Setting("seqcore.analysis.threads", 2,
            "Threads a pipeline may use (keep max_running x threads within the cores).", int),
    Setting("seqcore.analysis.input_url_hours", 48.0,
            "With an object-store backend, how long the signed URLs an executor that reads "
            "URLs (WES) gets for an analysis's input files and its samplesheet stay valid: "
            "longer than the longest run is expected to wait and take.", float),
    Setting("seqcore.analysis.work_path", "var/work",
            "Directory of the analyses' work directories (shared with remote executors, "
            "except a WES server with an object-store backend)."),
    Setting("seqcore.analysis.cleanup_days", "",
            "Remove work directories of finished analyses older than this many days "
            "(fractions allowed); empty: keep them."),
    Setting("seqcore.pipelines.dir", "",
            "Directory of pipeline descriptors (IRIDA Next's pipelines.json format, with each "
            "version's schemas below it; docs/pipelines.md); empty: none."),
    Setting("seqcore.worker.name", "",
            "This worker's name as the owner of the analyses it prepares: only the worker "
            "of that name (whose work directory holds the job) follows them; another takes "
            "one over, preparing it again, once its owner has not been seen for "
            "seqcore.processing.lease_seconds. Empty: the host name and the absolute "
            "seqcore.analysis.work_path, the same for every restart of this worker."),
    Setting("seqcore.worker.embedded", False,
            "Run a processing worker thread inside the web server (development).", as_bool),
    Setting("seqcore.oauth.access_token_seconds", 43200,
            "Default access-token lifetime for clients registered without one.", int),
    Setting("seqcore.oauth.refresh_token_seconds", 2592000,
            "Default refresh-token lifetime for clients registered without one.", int),
    Setting("seqcore.threads", 4,
            "Threads serving requests in each web process (deploy/gunicorn.conf.py starts "
            "that many per worker from the same SEQCORE_THREADS); sizes the database "
            "connection pool.", int),
    Setting("seqcore.db.pool_size", 0,
            "Connections each web process keeps open to PostgreSQL. 0: twice "
            "seqcore.threads (a request holds one connection, a streamed collection one "
            "more after its transaction has ended). SQLite is left to SQLAlchemy's default.",
            int),
    Setting("seqcore.db.max_overflow", 10,
            "Connections PostgreSQL may get beyond seqcore.db.pool_size under load, closed "
            "again when given back.", int),
    Setting("seqcore.oauth.token_cache_seconds", 30.0,
            "How long a web worker trusts its last check of a bearer token without looking "
            "the token up again; revocation, expiry and account changes still take effect "
            "on the next request (a revocation generation is read every time). 0: look "
            "every token up on every request.", float),
    Setting("seqcore.oauth.resource_servers", "",
            "Client ids of resource servers, separated by spaces or commas: they may "
            "introspect (/api/oauth/introspect) tokens issued to any client; every other "
            "client only its own."),
    Setting("seqcore.sign_in.max_failures", 5,
            "Failed password checks for one account (its username and e-mail address count "
            "as one) from one client address within the window, after which every password "
            "door (sign-in page, OAuth password grant, consent form) refuses that account "
            "there. From addresses the account has not signed in from "
            "(seqcore.sign_in.trust_days), this many failures from anywhere, or 4x this "
            "from the address over all accounts, also refuse.", int),
    Setting("seqcore.sign_in.trust_days", 90,
            "For how many days an address from which an account signed in with its "
            "password stays trusted for it: failures from other addresses, and from that "
            "address for other accounts, never refuse it there.", int),
    Setting("seqcore.sign_in.window_seconds", 900,
            "The failed sign-in window, in seconds.", int),
    Setting("seqcore.trusted_proxies", "",
            "Addresses or networks (CIDR) of reverse proxies, separated by spaces or "
            "commas. Only a request from one of them may name the client address "
            "(X-Forwarded-For), scheme (X-Forwarded-Proto) and host (X-Forwarded-Host); "
            "from anyone else those headers are ignored."),
    Setting("seqcore.password_hash.time_cost", 3,
            "argon2 time cost for password hashes (lower only in tests).", int),
    Setting("seqcore.password_hash.memory_cost", 65536,
            "argon2 memory cost in KiB for password hashes (lower only in tests).", int),
    # Data governance (docs/governance.md).
    Setting("seqcore.retention.days", 0,
            "Days a deleted sample or sequencing object stays in its project's trash, "
            "restorable by an owner, before the worker purges its stored bytes; 0: purged "
            "at once (rows in the deleting transaction, bytes after commit).",
            non_negative_int),
    # Submissions to NCBI (docs/ncbi.md).
    Setting("seqcore.ncbi.ftp_host", "",
            "Host of the NCBI submission FTP account (ftp-private.ncbi.nlm.nih.gov); empty: "
            "submissions are accepted and wait in NEW until one is set."),
    Setting("seqcore.ncbi.ftp_port", 21, "Port of the NCBI submission FTP account.", int),
    Setting("seqcore.ncbi.ftp_user", "", "User name of the NCBI submission FTP account."),
    Setting("seqcore.ncbi.ftp_password", "",
            "Password of the NCBI submission FTP account; keep it in the environment "
            "(SEQCORE_NCBI_FTP_PASSWORD). Never logged."),
    Setting("seqcore.ncbi.ftp_directory", "submit/Test",
            "Directory on the FTP account in which each submission gets a directory of its "
            "own: submit/Test for NCBI's test system, submit/Production for real "
            "submissions."),
    Setting("seqcore.ncbi.ftp_passive", True, "Use passive FTP data connections.", as_bool),
    Setting("seqcore.ncbi.ftp_timeout", 60.0,
            "Seconds an FTP connection may stay silent before it counts as lost.", float),
    Setting("seqcore.ncbi.ftp_retries", 3,
            "Connections an upload round makes (resuming where the last one stopped) before "
            "it gives the submission back to a later round.", int),
    Setting("seqcore.ncbi.retry_seconds", 5.0,
            "Pause before reconnecting after a lost FTP connection.", float),
    Setting("seqcore.ncbi.max_attempts", 5,
            "Upload rounds a submission may fail (the connection lost every time) before it "
            "is UPLOAD_ERROR.", int),
    Setting("seqcore.ncbi.poll_seconds", 300.0,
            "How often the worker reads a submission's report.xml while NCBI processes it.",
            float),
    Setting("seqcore.ncbi.namespace", "",
            "Default SPUID namespace (IRIDA's ncbi.upload.namespace): the centre's prefix of "
            "the identifiers seqcore gives its BioSamples and runs; a submission may name "
            "another."),
    Setting("seqcore.ncbi.vocabulary", "",
            "JSON file replacing the built-in instrument models, library strategies, sources "
            "and selections, and BioSample packages (docs/ncbi.md); empty: IRIDA's lists "
            "and three packages.", vocabulary_setting),
    # Data exports (docs/exports.md).
    Setting("seqcore.exports.expire_hours", 72.0,
            "Hours a ready data export can be downloaded; then the worker purges its bundle "
            "(the export stays listed as EXPIRED).", float),
    Setting("seqcore.exports.max_attempts", 3,
            "Rounds an export may fail for a passing reason (a worker stopped, the disk "
            "full) before it is ERROR.", int),
    # E-mail notifications (docs/notifications.md).
    Setting("seqcore.mail.host", "",
            "SMTP server the worker sends notifications through; empty: no e-mail is "
            "written or sent.", str),
    Setting("seqcore.mail.port", 25, "Port of the SMTP server (25; 587 with STARTTLS).", int),
    Setting("seqcore.mail.sender", "seqcore@localhost", "The From address of notifications."),
    Setting("seqcore.mail.starttls", False, "Upgrade the SMTP connection with STARTTLS.",
            as_bool),
    Setting("seqcore.mail.username", "", "SMTP user name (empty: no authentication)."),
    Setting("seqcore.mail.password", "", "SMTP password (set it in the environment: "
            "SEQCORE_MAIL_PASSWORD)."),
    Setting("seqcore.mail.timeout", 10.0, "Seconds to wait for the SMTP server.", float),
    Setting("seqcore.mail.max_attempts", 5,
            "Rounds a message may fail (the server down or refusing) before the worker gives "
            "it up; the delay doubles after each, from one minute.", int),
    Setting("seqcore.mail.base_url", "http://127.0.0.1:6543",
            "The address people reach seqcore at, for the links in notifications."),
    # Personal access tokens (IRIDA Next's administrator settings for them).
    Setting("seqcore.tokens.require_expiry", False,
            "Every personal access token must expire within seqcore.tokens.max_lifetime_days "
            "(IRIDA Next's require_personal_access_token_expiry): a token without an expiry "
            "date, or expiring later, is refused on the profile page and by seqcore tokens "
            "create; tokens made before stop working max_lifetime_days after they were "
            "created.", as_bool),
    Setting("seqcore.tokens.max_lifetime_days", 365,
            "With seqcore.tokens.require_expiry: the most days a personal access token may "
            "work (IRIDA Next's max_personal_access_token_lifetime_in_days).", positive_int),
    Setting("seqcore.tokens.cleanup_after_days", 30,
            "Expired and revoked personal access tokens are deleted this many days after "
            "they stopped working, by the worker (hourly) or seqcore tokens prune (IRIDA "
            "Next's cleanup_inactive_access_tokens_after_days); until then they stay listed "
            "on their owner's profile page.", non_negative_int),
    Setting("seqcore.notifications.token_expiry_days", 7,
            "Days before a personal access token expires when its holder is told, once.", int),
    Setting("seqcore.oauth.pkce_plain", False,
            "Accept PKCE's plain code_challenge_method (RFC 7636); only S256 otherwise.",
            as_bool),
    # The web pages, sessions and the GraphQL endpoint.
    Setting("seqcore.session.secret", "", "Signs session cookies. Required in production; "
            "SQLite deployments generate one next to the database file."),
    Setting("seqcore.session.secure", False, "Send the session cookie over HTTPS only.",
            as_bool),
    Setting("seqcore.session.max_age", 28800, "Seconds a session lasts without activity.",
            int),
    Setting("seqcore.graphql.app", "seqcore", "The app segment of GraphQL global ids "
            "(gid://<app>/<Type>/<id>)."),
    Setting("seqcore.graphql.max_depth", 15, "Deepest GraphQL selection accepted.", int),
    Setting("seqcore.graphql.max_complexity", 550, "Highest GraphQL query complexity "
            "accepted.", int),
    Setting("seqcore.graphql.max_response_bytes", 4 * 1024 * 1024, "Largest GraphQL answer "
            "sent; a larger one is a GraphQL error instead.", int),
    # What one GraphQL document may hold, counted before anything walks it
    # (seqcore.graphql.documentcaps), and how long one request may run.
    Setting("seqcore.graphql.max_document_bytes", 100_000,
            "Longest GraphQL document (characters) parsed.", int),
    Setting("seqcore.graphql.max_tokens", 15_000,
            "Most lexical tokens of a GraphQL document; the parser stops past them.", int),
    Setting("seqcore.graphql.max_operations", 20,
            "Most operations (queries, mutations) in one GraphQL document.", int),
    Setting("seqcore.graphql.max_fragments", 200,
            "Most fragment definitions in one GraphQL document.", int),
    Setting("seqcore.graphql.max_spreads", 500,
            "Most fragment spreads (...Name) in one GraphQL document.", int),
    Setting("seqcore.graphql.max_fields", 2_000,
            "Most fields written in one GraphQL document.", int),
    Setting("seqcore.graphql.max_aliases", 1_000,
            "Most aliased fields in one GraphQL document.", int),
    Setting("seqcore.graphql.max_directives", 200,
            "Most directives (@include, @skip) in one GraphQL document.", int),
    Setting("seqcore.graphql.max_expanded_fields", 5_000,
            "Most fields of a GraphQL document once every fragment spread is replaced by its "
            "fragment (fragments that spread each other twice grow exponentially).", int),
    Setting("seqcore.graphql.max_seconds", 10.0,
            "Seconds one GraphQL request may run; past them every field not yet resolved is "
            "an error and a mutation request saves nothing.", float),
    Setting("seqcore.graphiql.assets", "", "Directory holding the installed npm packages "
            "(node_modules) GraphiQL is served from; default: the copies built into the "
            "installed package, else the source tree's node_modules."),
    Setting("seqcore.log.format", "", "Log output: empty keeps the ini file's logging "
            "sections (seqcore's text lines on standard error when it has none); text: "
            "time, level, logger, request id, message; json: one JSON object per line.",
            parse_format),
    Setting("seqcore.log.access", True, "Write one access log line per request (logger "
            "seqcore.access, INFO).", as_bool),
    Setting("seqcore.metrics.allow", "127.0.0.0/8 ::1", "Client addresses or networks (CIDR) "
            "that may read /-/metrics, separated by spaces or commas; empty: none (then only "
            "seqcore.metrics.token admits).", as_networks),
    Setting("seqcore.metrics.token", "", "A bearer token that admits any client to "
            "/-/metrics (Authorization: Bearer <token>); keep it in the environment "
            "(SEQCORE_METRICS_TOKEN). Empty: no token admits."),
    # Traces (docs/operations.md, "Traces").
    Setting("seqcore.traces.otlp_endpoint", "", "Base URL of an OpenTelemetry collector's "
            "OTLP/HTTP receiver (http://collector:4318; /v1/traces is added): requests, SQL "
            "statements, worker jobs, analysis jobs and outgoing calls are traced and "
            "exported there. Empty: off, unless the standard OTEL_EXPORTER_OTLP_ENDPOINT "
            "(or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) variable names one. Needs the traces "
            "extra (pip install 'seqcore-server[traces]')."),
    Setting("seqcore.traces.service_name", "seqcore", "The service.name traces are "
            "exported under (one per deployment; web, worker and job processes share it)."),
    Setting("seqcore.traces.sample_ratio", 1.0, "Share of new traces recorded (0 to 1); "
            "work started by a request follows its request's decision, and a request "
            "whose client sent a sampled traceparent is recorded.", parse_ratio),
)


class SettingError(ConfigurationError):  # type: ignore[misc]  # pyramid has no types
    """A setting's value is unusable; the message says which, what and from where."""


@dataclass(frozen=True)
class Declared:
    """A setting and who declared it (``seqcore`` or a plugin's name)."""

    setting: Setting
    owner: str


def env_name(key: str) -> str:
    """``sqlalchemy.url`` → ``SEQCORE_SQLALCHEMY_URL``; ``seqcore.storage.path`` →
    ``SEQCORE_STORAGE_PATH``."""
    key = key.removeprefix("seqcore.")
    return "SEQCORE_" + key.replace(".", "_").upper()


def type_name(setting: Setting) -> str:
    """How the reference names a setting's type: ``int``, ``boolean``, ``string``..."""
    parser = setting.type_
    if parser is str:
        return "string"
    return getattr(parser, "type_name", getattr(parser, "__name__", repr(parser)))


def resolve_one(declared: Declared, settings: Mapping[str, Any], environ: Mapping[str, str],
                origin: str) -> Any:
    """The typed value of one setting: environment, then ``settings``, then the default."""
    setting = declared.setting
    variable = env_name(setting.name)
    if variable in environ:
        value, source = environ[variable], f"environment variable {variable}"
    elif setting.name in settings:
        value, source = settings[setting.name], origin
    else:
        value, source = setting.default, f"the default declared by {declared.owner}"
    if value is None or (isinstance(value, str) and not value.strip()):
        if setting.required:
            raise SettingError(
                f"setting {setting.name!r} is required but {source} leaves it empty: set it "
                f"in the ini file or in environment variable {variable}")
        if value is None:
            return None
    try:
        return setting.type_(value)
    except (TypeError, ValueError) as err:
        raise SettingError(
            f"setting {setting.name!r}: bad value {value!r} from {source} "
            f"(expected {type_name(setting)}: {err})") from err


def resolve(declarations: Iterable[Declared], settings: Mapping[str, Any],
            environ: Mapping[str, str] | None = None,
            origin: str = "the application settings") -> dict[str, Any]:
    """``settings`` with every declared key replaced by its typed value.

    Keys nobody declared (``pyramid.*``, ``tm.*``, an engine passed in by tests) pass
    through unchanged. ``origin`` names where ``settings`` came from (``ini file
    production.ini``) for the error messages.
    """
    environ = os.environ if environ is None else environ
    merged: dict[str, Any] = dict(settings)
    for declared in declarations:
        merged[declared.setting.name] = resolve_one(declared, settings, environ, origin)
    return merged


def core_declarations() -> list[Declared]:
    """The core's settings (its web settings included), as the core plugin declares them."""
    return [Declared(setting, "seqcore") for setting in CORE_SETTINGS]


def resolve_settings(settings: Mapping[str, Any], environ: Mapping[str, str] | None = None,
                     origin: str = "the application settings") -> dict[str, Any]:
    """The core's settings resolved (what the plugin manager and the CLI need before any
    plugin is loaded); :func:`resolve_declared` adds the plugins' once they are."""
    return resolve(core_declarations(), settings, environ, origin)


def declarations(pm: Any) -> list[Declared]:
    """Every setting the loaded plugins (the core's own included) declare, with its owner.

    Two declarations of one name stop the start-up naming both owners: two defaults for one
    key would make its value depend on the order plugins load in.
    """
    found: dict[str, Declared] = {}
    for impl in pm.hook.register_settings.get_hookimpls():
        owner = "seqcore" if impl.plugin_name.startswith("seqcore.") else (
            f"plugin {impl.plugin_name}")
        for setting in impl.function() or ():
            if not isinstance(setting, Setting):
                raise ConfigurationError(f"{owner}: register_settings returned {setting!r}, "
                                         "not a seqcore.framework.contrib.Setting")
            if setting.name in found:
                raise ConfigurationError(
                    f"setting {setting.name!r} is declared twice: by "
                    f"{found[setting.name].owner} and by {owner}")
            found[setting.name] = Declared(setting, owner)
    return list(found.values())


def resolve_declared(settings: Mapping[str, Any], pm: Any,
                     environ: Mapping[str, str] | None = None,
                     origin: str = "the application settings") -> dict[str, Any]:
    """Every declared setting of the core and the loaded plugins, typed (see module)."""
    return resolve(declarations(pm), settings, environ, origin)
