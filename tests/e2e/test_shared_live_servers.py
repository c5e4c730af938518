"""``shared_live_servers``: a live server asked for by name is prepared and started once per
session, every later request for the name gets the same running server, and a request for
the name with other settings is refused rather than handed a server it did not describe.

The server makes its own SQLite database (no ``sqlalchemy.url``), whatever the suite runs on."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

PASSWORD = "Shared-pass1!"
SETTINGS = {"seqcore.session.secret": "shared-servers-test"}


def prepare(server):
    server.create_user("reader", PASSWORD)
    server.secret = server.create_client("shared-client")


def test_a_named_server_is_prepared_and_started_once(shared_live_servers):
    first = shared_live_servers.get("shared-test", prepare, **SETTINGS)
    again = shared_live_servers.get("shared-test", prepare, **SETTINGS)
    assert again is first
    assert first.process is not None and first.process.poll() is None
    token = first.token("shared-client", first.secret, "reader", PASSWORD)
    assert first.get_json("/api/projects", token)["resource"]["resources"] == []


def test_the_same_name_with_other_settings_is_refused(shared_live_servers):
    shared_live_servers.get("shared-test", prepare, **SETTINGS)
    with pytest.raises(ValueError, match="other settings"):
        shared_live_servers.get("shared-test", prepare,
                                **{**SETTINGS, "seqcore.session.secret": "another"})


def test_the_documented_example_runs(shared_live_servers):
    """The example of docs/testing_plugins.md, run as written: its ``prepare`` makes the
    administrator and the client, and the fixture hands out the started server."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "testing_plugins.md").read_text()
    (example,) = [m for m in re.findall(r"```python\n(.*?)```", text, re.S)
                  if "def prepare(server):" in m]
    namespace = {"PASSWORD": PASSWORD, "pytest": pytest}
    exec(compile(example, "testing_plugins.md", "exec"), namespace)
    server = shared_live_servers.get("sync-source", namespace["prepare"],
                                     **{"seqcore.session.secret": "s"})
    token = server.token("client", server.secret, "admin", PASSWORD)
    assert server.get_json("/api/users", token)["resource"]["resources"][0][
        "username"] == "admin"
