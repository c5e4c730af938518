"""Every command of ``docs/tutorial.md``, in order, against a live server: the shell blocks
run as one bash script (``set -euo pipefail``: any failing command fails the test) with the
credentials ``./dev run`` would have printed and a personal access token made on the profile
page, as the tutorial tells its reader to. What the GraphQL part answers is checked step by
step from the files it keeps (ids, the attached pair, the execution's states and outputs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import httpx
import pytest

from seqcore.testing import database
from seqcore.testing.server import live_server

pytestmark = pytest.mark.xdist_group("serial")

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
PASSWORD = "Tutorial-password-1!"
EMAIL = "admin@localhost.localdomain"  # the development administrator's (seqcore serve)


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def personal_access_token(url: str) -> str:
    """Sign in and create a token on the profile page, as a person does in the browser."""
    with httpx.Client(base_url=url, follow_redirects=False) as browser:
        page = browser.get("/users/sign_in").text
        csrf = re.findall(r'name="csrf_token" value="([^"]+)"', page)[0]
        signed_in = browser.post("/users/sign_in", data={
            "csrf_token": csrf, "username": "admin", "password": PASSWORD})
        assert signed_in.status_code == 303, signed_in.text[:500]
        page = browser.get("/-/profile/personal_access_tokens").text
        csrf = re.findall(r'name="csrf_token" value="([^"]+)"', page)[-1]
        made = browser.post("/-/profile/personal_access_tokens", data={
            "csrf_token": csrf, "name": "tutorial", "scopes": "api", "expires_at": ""})
        assert made.status_code == 201, made.text[:500]
        (token,) = re.findall(r'id="new-token" readonly value="([^"]+)"', made.text)
        return str(token)


def answer(work: Path, name: str) -> dict:
    """A GraphQL answer the tutorial kept in a file (``GQL`` prints ``data``)."""
    return json.loads((work / name).read_text())


def graphql_journey(work: Path, lines: list[str]) -> None:
    """What each step of "The same through GraphQL" answered."""
    created = answer(work, "project.json")["createProject"]
    assert created["errors"] == [], created
    assert created["project"]["id"].startswith("gid://seqcore/Project/")
    assert created["project"]["fullPath"].startswith("admin/") and created["project"]["puid"]
    sample = answer(work, "sample.json")["createSample"]
    assert sample["errors"] == [], sample
    assert sample["sample"]["id"].startswith("gid://seqcore/Sample/")
    assert sample["sample"]["name"] == "isolate 2"
    assert (f"graphql project {created['project']['id']}, sample {sample['sample']['id']}"
            in lines)

    attached = answer(work, "attached.json")["attachFilesToSample"]
    assert attached["errors"] == [], attached
    assert len(attached["status"]) == 2 and set(attached["status"].values()) == {"success"}
    files = {a["filename"]: a["metadata"] for a in attached["sample"]["attachments"]["nodes"]}
    assert set(files) == {"reads_R1.fastq", "reads_R2.fastq"}, files
    assert files["reads_R1.fastq"]["direction"] == "forward"
    assert files["reads_R2.fastq"]["direction"] == "reverse"
    assert files["reads_R1.fastq"]["type"] == "pe"

    submitted = answer(work, "submitted.json")["submitWorkflowExecution"]
    assert submitted["errors"] == [], submitted
    execution = submitted["workflowExecution"]
    assert execution["id"].startswith("gid://seqcore/WorkflowExecution/")
    assert execution["name"] == "isolate 2 assembly" and execution["state"] == "initial"
    assert "workflow execution completed" in lines, lines[-40:]

    done = answer(work, "execution.json")["workflowExecution"]
    assert done["state"] == "completed" and done["error"] is None, done
    assert done["project"] == {"name": "Tutorial outbreak GraphQL"}
    outputs = {a["filename"] for a in done["attachments"]["nodes"]}
    assert "contigs-with-repeats.fasta" in outputs, outputs
    assert (work / "graphql-contigs.fasta").read_text().startswith(">")


def test_every_command_of_the_tutorial_runs(tmp_path):
    # A database of its own (SQLite, or PostgreSQL when the suite runs there): serving
    # migrates it with every installed plugin's branch, the assembly's included.
    url = database.test_database_url(tmp_path, "tutorial")
    server = live_server(tmp_path / "server", **{"sqlalchemy.url": url,
                                                 "seqcore.session.secret": "tutorial-test"})
    server.cli("users", "create", "--username", "admin", "--email", EMAIL, "--password",
               PASSWORD, "--first-name", "Development", "--last-name", "Administrator",
               "--phone-number", "0000", "--role", "ROLE_ADMIN")
    secret = server.create_client("seqcore-dev", "--grant-type", "password", "--lenient")
    server.start()
    try:
        blocks = shell_blocks(TUTORIAL.read_text())
        assert len(blocks) >= 8, "the tutorial lost its commands"
        work = tmp_path / "reader"
        work.mkdir()
        env = {**os.environ, "SEQCORE": server.url, "CLIENT_SECRET": secret,
               "PASSWORD": PASSWORD, "PAT": personal_access_token(server.url)}
        done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + "\n".join(blocks)],
                              cwd=work, env=env, capture_output=True, text=True, timeout=1800,
                              check=False)
        printed = done.stdout
        assert done.returncode == 0, printed[-3000:] + done.stderr[-3000:]
        lines = printed.splitlines()
        assert "COMPLETED" in lines and "ERROR" not in lines, printed[-3000:]
        # After COMPLETED: the project's analyses (the launch shared with it), then the rels.
        after = printed.split("COMPLETED\n", 1)[1].splitlines()
        assert after[0] == "1" and "outputFile/contigs-with-repeats" in after, after[:20]
        assert (work / "contigs.fasta").read_text().startswith(">")
        assert "isolate-1" in (work / "linelist.csv").read_text()
        assert '"totalSequences": 6000' in printed  # the QC record of the upload
        assert '"name": "Tutorial outbreak"' in printed  # the GraphQL answer
        assert '"state": "completed"' in printed
        graphql_journey(work, lines)
    finally:
        server.stop()
