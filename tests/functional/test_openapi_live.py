"""schemathesis against a live server: the requests it derives from ``/api/openapi.json`` get
no 5xx and no answer the document does not declare (status, media type, body shape).

The server is waitress on loopback serving the suite's application and database; the
caller is an administrator with a real token, over a deployment with projects, samples,
uploaded files, a completed analysis and a run, whose ids the path parameters are drawn
from half of the time, so the generated requests reach the views and not only the 401 or
404 in front of them.
"""

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import text
from waitress import create_server

from seqcore.analysis.registry import analysis_registry
from seqcore.models.user import SystemRole

# No 5xx; status, media type and body as documented; 405 with a true Allow for methods not
# documented; 401 without the token.
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance,unsupported_method,allow_header_conformance,"
          "ignored_auth")


@pytest.fixture
def served(app, engine):
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=10)


def schemathesis(url, token, tmp_path, config, *extra):
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file",
               str(config), "run",
               f"{url}/api/openapi.json", "--header", f"Authorization: Bearer {token}",
               "--checks", CHECKS, "--workers", "1", "--no-color", *extra]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path,
                          timeout=1200, check=False)


def known_values(engine, registry):
    """Path parameter values that name real things of the deployment, by parameter name, so
    generated requests reach the views behind ids (and not only their 404s)."""
    ids = {}
    with engine.connect() as conn:
        def column(sql):
            return [str(v) for v in conn.execute(text(sql)).scalars()]

        ids["pid"] = column("SELECT id FROM project")
        ids["sid"] = column("SELECT id FROM sample")
        ids["oid"] = column("SELECT id FROM sequencing_object")
        ids["fid"] = column("SELECT id FROM sequence_file")
        ids["id"] = column("SELECT id FROM analysis_submission")
        ids["rid"] = column("SELECT id FROM sequencing_run")
        usernames = column('SELECT username FROM "user"')
        ids["key"] = column('SELECT id FROM "user"') + usernames + ["current"]
        ids["username"] = usernames
        ids["name"] = column("SELECT name FROM sample")
    types = analysis_registry(registry).types
    ids["type"] = [*types, "sistr", "miseqrun", "seqmodelrun"]
    ids["name"] += list(types)
    ids["kind"] = ["pairs", "unpaired", "fast5"]
    return {name: values for name, values in ids.items() if values}


def config_file(tmp_path, values):
    """A schemathesis.toml drawing each path parameter from the deployment's values half of
    the time (the other half stays generated)."""
    lines = ["[dictionaries]"]
    lines += [f"{name} = {{ values = {json.dumps(found)} }}" for name, found in values.items()]
    lines += ["", "[parameters]"]
    lines += [f'"path.{name}" = {{ dictionary = "{name}", probability = 0.5 }}'
              for name in values]
    path = tmp_path / "schemathesis.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_schemathesis_finds_no_5xx_and_no_contradiction(served, deployment, factories,
                                                         engine, app_config, tmp_path):
    admin = factories.user(role=SystemRole.ADMIN)
    factories.run(user=admin)
    token = factories.headers(admin)["Authorization"].split(" ", 1)[1]
    config = config_file(tmp_path, known_values(engine, app_config.registry))
    done = schemathesis(served, token, tmp_path, config, "--max-examples", "10",
                        "--phases", "examples,coverage,fuzzing",
                        # Deleting the caller's own account would end the run early.
                        "--exclude-operation-id", "api.user.delete")
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-3000:]
    assert "passed" in done.stdout
