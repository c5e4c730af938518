"""The log-secrets check of the test kit catches a leak, and the sources seqcore knows to be
leaky are silenced."""

import logging
import os
import subprocess
import sys
import textwrap

from sqlalchemy.engine import make_url

from seqcore.testing.database import URL_VARIABLE

LEAKY_SUITE = '''
import logging

from seqcore.testing.logsecrets import remember


def test_logs_a_password():
    remember("leaky-password-value-123", "password")
    logging.getLogger("some.plugin").debug("signing in with leaky-password-value-123")


def test_logs_a_token_it_was_given(factories):
    token = factories.token(factories.user())
    logging.getLogger("some.plugin").info("calling out with Bearer %s", token)


def test_logs_a_token_seen_in_a_response(testapp, factories):
    factories.user(username="alice", password="Alice-pass-1!")
    factories.client(client_id="c1", secret="c1-secret-value")
    res = testapp.post("/api/oauth/token", {
        "grant_type": "password", "client_id": "c1", "client_secret": "c1-secret-value",
        "username": "alice", "password": "Alice-pass-1!"})
    logging.getLogger("some.plugin").warning("got %s", res.json["refresh_token"])


def test_logs_nothing_secret(testapp, factories):
    testapp.get("/api/projects", headers=factories.headers(factories.user()), status=200)
'''


def test_a_leak_fails_the_test_that_made_it(tmp_path):
    (tmp_path / "test_leaky.py").write_text(LEAKY_SUITE)
    (tmp_path / "conftest.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.fixture(scope="session")
        def seqcore_plugins():
            import seqcore_sequencefiles.plugin
            return [seqcore_sequencefiles.plugin]
    '''))
    # Not this session's xdist worker: the inner pytest is a session of its own (with the
    # worker's name it would write its log to session.log.gw0 and name its database after it).
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "COV_"))}
    env["SEQCORE_LOG_SECRETS_FILE"] = str(tmp_path / "session.log")
    env.pop("SEQCORE_LOG_SECRETS", None)
    if env.get(URL_VARIABLE):  # a database of its own, not this session's
        url = make_url(env[URL_VARIABLE])
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        env[URL_VARIABLE] = url.set(
            database=f"{url.database or 'seqcore_test'}_{worker}_logsecrets"
        ).render_as_string(hide_password=False)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                           "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    summary = out.strip().splitlines()[-1]
    assert "4 passed" in summary and "3 errors" in summary and "failed" not in summary, out
    for name in ("test_logs_a_password", "test_logs_a_token_it_was_given",
                 "test_logs_a_token_seen_in_a_response"):
        assert f"ERROR at teardown of {name}" in out, out
    assert "ERROR at teardown of test_logs_nothing_secret" not in out
    assert "password (lea...) in:" in out
    assert "access token (" in out and "response field refresh_token (" in out
    # The report masks what it found (pytest's own captured-log section still shows it).
    assert "signing in with <SECRET>" in out
    assert (tmp_path / "session.log").read_text().count("leaky-password-value-123") == 1


def test_oauthlib_debug_records_lose_their_text(caplog):
    caplog.set_level(logging.DEBUG)
    logging.getLogger("oauthlib.oauth2.rfc6749.grant_types.base").debug(
        "Issuing token %r", {"access_token": "abcdefgh12345678"})
    logging.getLogger("oauthlib.oauth2").info("Validating %s", "a request")
    [debug, info] = [r for r in caplog.records if r.name.startswith("oauthlib")]
    assert "abcdefgh12345678" not in debug.getMessage()
    assert "withheld" in debug.getMessage()
    assert info.getMessage() == "Validating a request"


LATE_LEAK_SUITE = '''
import logging

import pytest

from seqcore.testing.logsecrets import remember


@pytest.fixture(scope="session")
def late():
    yield
    logging.getLogger("some.plugin").warning("at the end: late-secret-value-456")


def test_learns_a_secret(late):
    remember("late-secret-value-456", "password")
'''


def test_a_leak_after_the_last_test_fails_a_parallel_run(tmp_path):
    """With pytest-xdist the whole-log search at the session's end happens in a worker; the
    controller must still fail the run and say where."""
    (tmp_path / "test_late.py").write_text(LATE_LEAK_SUITE)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "COV_", "SEQCORE_LOG_SECRETS"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1",
                           "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "1 passed" in out.strip().splitlines()[-1], out
    assert "secrets appeared in the logs" in out and "password (lat...) in:" in out, out
    assert "at the end: <SECRET>" in out, out
