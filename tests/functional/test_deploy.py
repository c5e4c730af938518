"""The deployment files in deploy/ are checked by the tools that read them: systemd's own
verifier for the units, ``nginx -t`` for the reverse-proxy example (both on Debian; ./dev
installs nginx). Paths the files name on a production machine are replaced by this
machine's equivalents first, as an administrator adapts them."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Files, tools and a live server with its own SQLite database: nothing here reaches the
# suite's database, so .ci/run runs it once.
pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))


def test_the_units_and_the_proxy_example_exist():
    assert {unit.name for unit in UNITS} == {"seqcore-web.service", "seqcore-worker.service",
                                             "seqcore-worker@.service",
                                             "seqcore-celery.service"}
    assert (DEPLOY / "nginx" / "seqcore.conf").is_file()
    web = (DEPLOY / "systemd" / "seqcore-web.service").read_text()
    assert "--config /etc/seqcore/gunicorn.conf.py" in web  # deploy/gunicorn.conf.py
    assert "--paste /etc/seqcore/production.ini" in web
    # The worker template runs the same command as the single worker's unit.
    worker, template = ((DEPLOY / "systemd" / name).read_text()
                        for name in ("seqcore-worker.service", "seqcore-worker@.service"))
    command = "ExecStart=/opt/seqcore/venv/bin/seqcore -c /etc/seqcore/production.ini worker\n"
    assert command in worker and command in template and "%i" in template
    celery = (DEPLOY / "systemd" / "seqcore-celery.service").read_text()
    assert "celery -A seqcore_celery.worker worker -Q seqcore" in celery
    assert "SEQCORE_CONFIG=/etc/seqcore/production.ini" in celery


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_verifies_the_unit(unit, tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian: systemd)")
    text = unit.read_text().replace("/opt/seqcore/venv/bin", str(Path(sys.executable).parent))
    copy = tmp_path / unit.name
    copy.write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                          text=True, timeout=120)
    # Unknown keys are only warnings to systemd: any word about the unit fails the test.
    said = [line for line in (done.stdout + done.stderr).splitlines() if unit.name in line]
    assert done.returncode == 0 and not said, done.stdout + done.stderr


def test_systemd_verify_catches_a_mistake(tmp_path):
    """The check above can fail: a misspelt key is reported."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian: systemd)")
    unit = DEPLOY / "systemd" / "seqcore-worker.service"
    copy = tmp_path / unit.name
    copy.write_text(unit.read_text().replace("/opt/seqcore/venv/bin",
                                             str(Path(sys.executable).parent))
                    .replace("KillSignal=", "KilSignal="))
    done = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                          text=True, timeout=120)
    assert "Unknown key 'KilSignal'" in done.stdout + done.stderr


def nginx_test(tmp_path, site_text):
    """``nginx -t`` on the site file inside a minimal main configuration of its own."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj",
                    "/CN=seqcore.example.org"], check=True, capture_output=True, timeout=60)
    site = tmp_path / "site.conf"
    site.write_text(site_text
                    .replace("/etc/ssl/certs/seqcore.example.org.pem", str(cert))
                    .replace("/etc/ssl/private/seqcore.example.org.key", str(key)))
    main = tmp_path / "nginx.conf"
    main.write_text(f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
                    "events {}\nhttp {\n    access_log off;\n"
                    f"    client_body_temp_path {tmp_path}/body;\n"
                    f"    proxy_temp_path {tmp_path}/proxy;\n    include {site};\n}}\n")
    return subprocess.run(["nginx", "-t", "-p", str(tmp_path), "-c", str(main)],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def nginx():
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed (./dev test installs it: apt-get install nginx)")


def test_nginx_accepts_the_proxy_example(nginx, tmp_path):
    text = (DEPLOY / "nginx" / "seqcore.conf").read_text()
    done = nginx_test(tmp_path, text)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    # What the example promises: upload limit at seqcore's own default (20 GiB), bodies
    # streamed, forwarding headers set rather than passed through.
    assert "client_max_body_size 20g;" in text and "proxy_request_buffering off;" in text
    for header in ("X-Forwarded-Proto $scheme", "X-Forwarded-Host $host",
                   "X-Forwarded-For $proxy_add_x_forwarded_for"):
        assert f"proxy_set_header {header};" in text


def test_nginx_check_catches_a_mistake(nginx, tmp_path):
    text = (DEPLOY / "nginx" / "seqcore.conf").read_text().replace(
        "client_max_body_size 20g;", "client_max_body_size twenty;")
    done = nginx_test(tmp_path, text)
    assert done.returncode != 0 and "client_max_body_size" in done.stderr


@pytest.mark.slow
def test_nginx_example_in_front_of_a_live_seqcore(nginx, tmp_path):
    """The example itself (ports and upstream moved to free ones) in front of gunicorn: TLS,
    the HTTP redirect, and links in answers naming the public scheme and host however the
    client forges its own X-Forwarded-* headers."""
    import json
    import ssl
    import time
    import urllib.error
    import urllib.request

    from seqcore.testing.server import free_port, live_server

    server = live_server(tmp_path / "server", **{"seqcore.trusted_proxies": "127.0.0.1 ::1",
                                                 "seqcore.worker.embedded": "false"})
    server.create_user("proxied", "Proxied-pass1!")
    secret = server.create_client("proxy-check")
    server.start("gunicorn")
    plain, tls = free_port(), free_port()
    text = ((DEPLOY / "nginx" / "seqcore.conf").read_text()
            .replace("server 127.0.0.1:6543;", f"server 127.0.0.1:{server.port};")
            .replace("    listen [::]:80;\n", "").replace("    listen [::]:443 ssl http2;\n", "")
            .replace("listen 80;", f"listen 127.0.0.1:{plain};")
            .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{tls} ssl http2;"))
    nginx_dir = tmp_path / "nginx"
    nginx_dir.mkdir()
    assert nginx_test(nginx_dir, text).returncode == 0
    main = (nginx_dir / "nginx.conf").read_text()
    (nginx_dir / "nginx.conf").write_text("user root root;\n" + main)  # tmp_path is root's
    process = subprocess.Popen(["nginx", "-p", str(nginx_dir), "-c",
                                str(nginx_dir / "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(Keep, urllib.request.HTTPSHandler(context=context))

    def call(url, data=None, headers=None):
        request = urllib.request.Request(url, data=data, headers={
            "Host": "seqcore.example.org", **(headers or {})})
        try:
            with opener.open(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, headers, _ = call(f"http://127.0.0.1:{plain}/api")
                break
            except OSError:
                assert time.monotonic() < deadline, process.stdout.read1().decode()
                time.sleep(0.2)
        assert status == 301 and headers["Location"] == "https://seqcore.example.org/api"

        form = ("grant_type=password&client_id=proxy-check&client_secret=" + secret
                + "&username=proxied&password=Proxied-pass1%21").encode()
        status, _, body = call(f"https://127.0.0.1:{tls}/api/oauth/token", form)
        assert status == 200, body
        bearer = json.loads(body)["access_token"]
        forged = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http",
                  "Authorization": f"Bearer {bearer}", "Accept": "application/json"}
        status, _, body = call(f"https://127.0.0.1:{tls}/api/projects", headers=forged)
        assert status == 200, body
        links = [link["href"] for link in json.loads(body)["resource"]["links"]]
        assert links and all(href.startswith("https://seqcore.example.org/api")
                             for href in links), links
    finally:
        process.terminate()
        process.wait(timeout=20)
        server.stop()


def test_gunicorn_listens_where_nginx_and_production_ini_expect_it():
    """gunicorn takes no address from ``--paste production.ini``: its configuration names
    the one the nginx example forwards to and production.ini's server section states."""
    import configparser
    import runpy

    config = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    ini = configparser.RawConfigParser()
    ini.read(ROOT / "production.ini")
    nginx = (ROOT / "deploy" / "nginx" / "seqcore.conf").read_text()
    assert config["bind"] == ini["server:main"]["bind"] == "127.0.0.1:6543"
    assert f"server {config['bind']};" in nginx
