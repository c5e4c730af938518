"""The application as a deployed server builds it, for every benchmark.

A lab installs seqcore with its first-party plugins and runs ``seqcore serve``, pserve or
gunicorn on an ini file: the plugins load from their entry points and every request writes
its access log line. A benchmark that passed a plugin list or left logging unset would measure
another program. The benchmarks build their applications here:

* :func:`setup` for the work before serving (migrations, data, tokens): entry-point plugins,
  configuration committed, so services can be looked up;
* :func:`deployed_app` for the application they time: the PasteDeploy factory
  (:func:`seqcore.config.main`) itself, with the process's logging set up as a server's is
  (the access log at INFO), written to a file instead of the terminal; :func:`served` does
  the same for a configuration :func:`setup` made (an application driven in process);
* :func:`loaded_plugins` names the plugins loaded, for the benchmark's printout;
* :func:`seed_project` fills one project with samples and metadata fields, for the benchmarks
  of a large project's pages and line lists.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyramid.config import Configurator

SECRET = "bench-session-secret"


def bench_settings(url: str, **extra: Any) -> dict[str, Any]:
    """The settings every benchmark's application shares: the database and a session
    secret (an ini file's minimum), plus ``extra``."""
    return {"sqlalchemy.url": url, "seqcore.session.secret": SECRET, **extra}


def setup(settings: Mapping[str, Any]) -> Configurator:
    """The application's configuration, plugins from entry points, committed (services
    registered), for preparing data before serving."""
    from seqcore.config import configure

    config = configure(dict(settings), origin="the benchmark's settings")
    config.commit()
    print(f"plugins loaded: {', '.join(loaded_plugins(config.registry)) or 'none'}",
          file=sys.stderr)
    return config


def seed_project(config: Configurator, samples: int, fields: int,
                 password_hash: str = "x") -> str:
    """Project 1, owned by the account ``bench`` (with ``password_hash``), holding ``samples``
    samples with ``fields`` text metadata fields each, inserted in batches of 10,000; returns
    a read and write bearer token for ``bench``."""
    import transaction
    from sqlalchemy import insert

    from seqcore.db import session_for
    from seqcore.models import (
        MetadataEntry,
        OAuthClient,
        Project,
        ProjectMember,
        ProjectSample,
        Sample,
        User,
    )
    from seqcore.models.oauth import digest
    from seqcore.oauth.tokens import issue_token
    from seqcore.services import ISessionFactory, registry_service

    factory = registry_service(config.registry, ISessionFactory)
    with transaction.manager:
        db = session_for(factory, transaction.manager)
        user = User(username="bench", email="bench@example.org", password_hash=password_hash,
                    first_name="Bench", last_name="Mark", phone_number="0000")
        client = OAuthClient(client_id="bench", secret_hash=digest("bench"))
        db.add_all([user, client, Project(name="Bench project", namespace="bench",
                                          path="bench")])
        db.flush()
        db.add(ProjectMember(project_id=1, user_id=user.id, role="PROJECT_OWNER",
                             metadata_role="LEVEL_4"))
        step = 10_000
        for start in range(1, samples + 1, step):
            ids = range(start, min(start + step, samples + 1))
            db.execute(insert(Sample), [{"id": i, "name": f"sample-{i:06d}",
                                         "puid": f"INXT_SAM_{i:010d}"} for i in ids])
            db.execute(insert(ProjectSample), [{"project_id": 1, "sample_id": i,
                                                "sample_name": f"sample-{i:06d}",
                                                "owner": True} for i in ids])
            db.execute(insert(MetadataEntry), [
                {"sample_id": i, "field": f"field_{f:02d}", "value": f"value {i}-{f}",
                 "type": "text"} for i in ids for f in range(fields)])
        return str(issue_token(db, client, user))


def log_to_file(path: Path) -> None:
    """Send this process's log records (the access log among them) to ``path``, formatted
    as a deployed server's standard error is: :func:`seqcore.observability.logconfig.apply`
    then keeps this handler instead of adding one on the terminal."""
    from seqcore.observability.logconfig import formatter

    root = logging.getLogger()
    root.setLevel(logging.INFO)
    if any(isinstance(h, logging.FileHandler) and h.baseFilename == str(Path(path).resolve())
           for h in root.handlers):
        return  # a second application of the same process logs to the same file
    handler = logging.FileHandler(path)
    handler.setFormatter(formatter("text"))
    root.addHandler(handler)


def deployed_app(settings: Mapping[str, Any], log: Path | None = None) -> Any:
    """The WSGI application from seqcore's PasteDeploy factory, as pserve and gunicorn
    ``--paste`` build it, with its access log written to ``log`` (a temporary file when
    ``None``). Prints the plugins loaded on standard error."""
    from seqcore.config import main

    if log is None:
        log = Path(tempfile.mkstemp(prefix="seqcore-bench-", suffix=".log")[1])
    log_to_file(log)
    app = main({"__file__": "the benchmark's settings"}, **settings)
    print(f"plugins loaded: {', '.join(loaded_plugins(app.registry)) or 'none'}; "
          f"access log: {log}", file=sys.stderr)
    return app


def served(config: Configurator, log: Path | None = None) -> Any:
    """The WSGI application of a configuration made by :func:`setup`, with the process's
    logging set up as :func:`seqcore.config.main` sets it (for benchmarks that drive the
    application in process and share its registry with a worker or factories)."""
    from seqcore.observability.logconfig import apply

    if log is None:
        log = Path(tempfile.mkstemp(prefix="seqcore-bench-", suffix=".log")[1])
    log_to_file(log)
    apply(config.get_settings())
    print(f"plugins loaded: {', '.join(loaded_plugins(config.registry)) or 'none'}; "
          f"access log: {log}", file=sys.stderr)
    return config.make_wsgi_app()


def announce_server_plugins(ini: Path) -> list[str]:
    """Print (on standard error) and return the plugins a server started from ``ini`` (a
    live server of the test kit: ``seqcore serve`` or gunicorn on that file) loads: the
    same settings and entry points, built once more in this process."""
    import configparser

    parser = configparser.RawConfigParser()
    parser.read(ini)
    names = loaded_plugins(setup(dict(parser["app:main"])).registry)
    print(f"plugins loaded: {', '.join(names) or 'none'}; access log: the server's",
          file=sys.stderr)
    return names


def loaded_plugins(registry: Any) -> list[str]:
    """The entry-point and site plugins the application loaded (the core's own aside)."""
    from seqcore.framework.plugins import CORE_PLUGINS, plugin_infos

    return [info.name for info in plugin_infos(registry.pm) if info.name not in CORE_PLUGINS]


def wait_for(port: int, process: subprocess.Popen | None = None, seconds: float = 180) -> None:
    """Until the server on ``port`` accepts connections (building the application takes a
    while on a busy machine); an error if ``process`` ends first or time runs out."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process is not None and process.poll() is not None:
                raise RuntimeError(
                    f"the server ended with status {process.returncode}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on port {port}") from None
            time.sleep(0.1)
