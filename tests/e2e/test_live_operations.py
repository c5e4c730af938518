"""Health, access log and metrics under the real servers on loopback: waitress (``seqcore
serve``) and gunicorn with two worker processes sharing ``PROMETHEUS_MULTIPROC_DIR``."""

from __future__ import annotations

import json
import re
import threading
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from seqcore.testing import database
from seqcore.testing.server import live_server

pytestmark = pytest.mark.slow

PASSWORD = "Live-ops-pass1!"


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, res.read(), dict(res.headers)
    except urllib.error.HTTPError as err:
        return err.code, err.read(), dict(err.headers)


def header(headers, name):
    return next(v for k, v in headers.items() if k.lower() == name.lower())


def counter(text, name, **labels):
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v
                                           for k, v in labels.items()):
                total += sample.value
    return total


def serve(tmp_path, **settings):
    """A live server on a database of its own: serving migrates it with every installed
    plugin's branch, which the session's database must not take."""
    url = database.test_database_url(tmp_path, "live_ops")
    srv = live_server(tmp_path / "server", **{"sqlalchemy.url": url,
                                              "seqcore.session.secret": "live-ops-test",
                                              **settings})
    srv.create_user("admin", PASSWORD, "ROLE_ADMIN")
    srv.secret = srv.create_client("client")
    return srv


@pytest.mark.parametrize("log_format", ["", "json"])
def test_access_log_under_waitress(tmp_path, log_format):
    srv = serve(tmp_path, **{"seqcore.log.format": log_format})
    srv.start("waitress")
    try:
        token = srv.token("client", srv.secret, "admin", PASSWORD)
        status, _, headers = srv.request("GET", "/api/projects?page=1", token)
        assert status == 200
        rid = header(headers, "X-Request-ID")
        status, body, headers = get(srv.url + "/-/health", {"X-Request-ID": "probe-0001"})
        assert (status, json.loads(body), header(headers, "X-Request-ID")) == (
            200, {"status": "ok"}, "probe-0001")
        assert get(srv.url + "/-/ready")[0] == 200
    finally:
        srv.stop()
    log = (srv.root / "server.log").read_text()
    if log_format == "json":
        entries = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
        access = [e for e in entries if e["logger"] == "seqcore.access"]
        projects = next(e for e in access if e["path"] == "/api/projects?page=1")
        assert projects["request_id"] == rid and projects["status"] == 200
        assert projects["user_id"] is not None and projects["bytes"] > 0
        assert any(e["request_id"] == "probe-0001" and e["path"] == "/-/health"
                   for e in access)
    else:
        assert re.search(rf"GET /api/projects\?page=1 200 \d+B [\d.]+ms user=\d+ "
                         rf"request_id={rid}", log), log
        assert "GET /-/health 200 15B" in log and "request_id=probe-0001" in log
    # The token endpoint's request and answer carry the password and the token: neither
    # reaches the server's log.
    assert PASSWORD not in log and token not in log and srv.secret not in log
    assert "POST /api/oauth/token 200" in log or '"path": "/api/oauth/token"' in log


def test_metrics_add_up_across_gunicorn_workers(tmp_path, monkeypatch):
    multiproc = tmp_path / "prometheus"
    multiproc.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(multiproc))
    srv = serve(tmp_path)
    srv.start("gunicorn", workers=2)
    sent = 60
    try:
        for _ in range(100):  # both workers up and answering
            if get(srv.url + "/-/ready")[0] == 200:
                break
        before = get(srv.url + "/-/metrics")[1].decode()
        base = counter(before, "seqcore_http_requests_total", route="/-/health",
                       status="200")

        def hammer(count):
            for _ in range(count):
                assert get(srv.url + "/-/health", {"Connection": "close"})[0] == 200

        threads = [threading.Thread(target=hammer, args=(sent // 6,)) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        status, body, headers = get(srv.url + "/-/metrics")
        assert status == 200 and header(headers, "Content-Type").startswith("text/plain")
        text = body.decode()
    finally:
        srv.stop()
    assert counter(text, "seqcore_http_requests_total", route="/-/health",
                   status="200") - base == sent
    assert counter(text, "seqcore_http_request_duration_seconds_count",
                   route="/-/health") - base == sent
    # Two processes counted (one file each), and the answer is their sum.
    pids = {re.search(r"_(\d+)\.db$", f.name).group(1) for f in multiproc.glob("counter_*.db")}
    assert len(pids) >= 2, sorted(f.name for f in multiproc.iterdir())
    log = (srv.root / "server.log").read_text()
    assert log.count("GET /-/health 200") == sent + 0, log[-2000:]


def test_seqcore_worker_logs_the_upload_request_id_in_json(app_config, factories,
                                                          upload_reads, database_url,
                                                          tmp_path):
    """``seqcore worker`` (its own process, as deployed) processes an upload and logs, as
    JSON, under the id of the request that uploaded it."""
    import os
    import subprocess
    import sys

    user = factories.user()
    sample = factories.sample(factories.project(owner=user))
    uploaded = upload_reads(sample, {**factories.headers(user),
                                     "X-Request-ID": "worker-req-0004"}, process=False)
    settings = app_config.get_settings()
    lines = {"use": "egg:seqcore-server", "sqlalchemy.url": database_url,
             "seqcore.storage.path": settings["seqcore.storage.path"],
             "seqcore.analysis.work_path": settings["seqcore.analysis.work_path"],
             "seqcore.session.secret": "worker-test-secret",
             "seqcore.plugins.enabled": "sequencefiles",
             "seqcore.plugins.modules": "tests.plugins.readcount",
             "seqcore.log.format": "json"}
    ini = tmp_path / "worker.ini"
    ini.write_text("[app:main]\n" + "".join(f"{k} = {v}\n" for k, v in lines.items()))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-m", "seqcore.cli", "-c", str(ini), "worker",
                           "--once"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    entries = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    about = [e for e in entries if e["logger"] == "seqcore.qc.processing"
             and f"object {uploaded.id} " in e["message"] + " "]
    assert len(about) == 2, done.stdout[-2000:] + done.stderr[-3000:]
    assert {e["request_id"] for e in about} == {"worker-req-0004"}
    assert about[-1]["message"].endswith("finished request_id=worker-req-0004")
