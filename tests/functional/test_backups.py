"""``seqcore backup``, ``restore`` and ``check``: a deployment with samples, files, analyses
and tokens is backed up, restored into a new one, and answers every API request the same.

Runs on the suite's database (SQLite, or PostgreSQL with SEQCORE_TEST_DATABASE_URL: then
``pg_dump``/``pg_restore`` from postgresql-client do the work).
"""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.engine import make_url
from webtest import TestApp

from seqcore.cli import main
from seqcore.config import configure
from seqcore.exports.backups import (
    FILES,
    MANIFEST,
    BackupError,
    backup,
    check,
    check_client_version,
    restore,
)
from seqcore.testing import database as test_databases
from tests.functional.walking import walk


def rooted(answers, storage):
    """The answers with the storage directory named ``<storage>``: a sequence file's
    ``file`` is its location, and the restored deployment keeps its files elsewhere."""
    prefix = str(Path(storage).resolve())

    def swap(value):
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        if isinstance(value, str) and value.startswith(prefix):
            return "<storage>" + value[len(prefix):]
        return value

    return {path: (status, swap(body)) for path, (status, body) in answers.items()}


def new_deployment(tmp_path, seqcore_settings, name):
    url = test_databases.test_database_url(tmp_path / name, name)
    return url, tmp_path / name / "storage"


def app_over(url, storage, seqcore_settings, seqcore_plugins):
    settings = {**seqcore_settings, "sqlalchemy.url": url, "seqcore.storage.path": str(storage)}
    return TestApp(configure(settings, plugins=seqcore_plugins).make_wsgi_app(),
                   extra_environ={"HTTP_HOST": "localhost"})


def test_backup_restore_round_trip(deployment, testapp, app_config, seqcore_settings,
                                   seqcore_plugins, tmp_path):
    settings = app_config.get_settings()
    url, storage = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    headers = deployment["headers"]
    before = rooted(walk(testapp, headers), storage)
    assert len(before) > 30
    assert any("(download)" in path for path in before)
    assert any("/analysis/file/" in path for path in before)

    target = tmp_path / "backup"
    first = backup(url, storage, target)
    assert first.files >= 4 and first.copied == first.files
    manifest = json.loads((target / MANIFEST).read_text())
    assert len(manifest["files"]) == first.files
    for relative, entry in manifest["files"].items():
        assert (target / FILES / relative).stat().st_size == entry["size"]
        assert len(entry["sha256"]) == 64
    again = backup(url, storage, target)  # incremental: nothing new to copy
    assert (again.files, again.copied, again.removed) == (first.files, 0, 0)

    restored_url, restored_storage = new_deployment(tmp_path, seqcore_settings, "restored")
    assert restore(restored_url, restored_storage, target) == first.files
    assert not check(restored_url, restored_storage).problems
    restored = app_over(restored_url, restored_storage, seqcore_settings, seqcore_plugins)
    # The same OAuth token works: tokens came along.
    after = rooted(walk(restored, headers), restored_storage)
    assert after.keys() == before.keys()
    for path in before:
        assert after[path] == before[path], path
    query = {"query": "{ currentUser { email } }"}
    assert restored.post_json("/api/graphql", query, headers=deployment["graphql"]).json == {
        "data": {"currentUser": {"email": deployment["user"].email}}}

    with pytest.raises(BackupError, match="not empty"):  # only into a new deployment
        restore(restored_url, tmp_path / "elsewhere", target)


def test_a_new_file_is_the_only_one_copied(deployment, app_config, factories, tmp_path):
    settings = app_config.get_settings()
    url, storage = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    first = backup(url, storage, tmp_path / "backup")
    sample = factories.sample(project=factories.project())
    factories.sequencing_object(sample, kind="unpaired")
    second = backup(url, storage, tmp_path / "backup")
    assert (second.files, second.copied, second.removed) == (first.files + 1, 1, 0)


def test_a_lost_file_stops_the_backup_and_keeps_the_last_one(deployment, app_config,
                                                              factories, tmp_path):
    settings = app_config.get_settings()
    url, storage = settings["sqlalchemy.url"], Path(settings["seqcore.storage.path"])
    target = tmp_path / "backup"
    backup(url, storage, target)
    kept = {p: p.read_bytes() for p in target.iterdir() if p.is_file()}
    factories.sample(project=factories.project())  # the database changes...
    lost = next(p for p in storage.rglob("*")
                if p.is_file() and "tmp" not in p.relative_to(storage).parts)
    lost.unlink()  # ...and a stored file is gone
    with pytest.raises(BackupError, match="missing from storage"):
        backup(url, storage, target)
    assert {p: p.read_bytes() for p in target.iterdir() if p.is_file()} == kept


def cli(ini, *args):
    return CliRunner().invoke(main, ["-c", str(ini), *args], catch_exceptions=False)


def test_cli_backup_check_and_restore(deployment, app_config, tmp_path, seqcore_settings):
    settings = app_config.get_settings()
    storage = Path(settings["seqcore.storage.path"])
    ini = tmp_path / "live.ini"
    ini.write_text(f"[app:main]\nuse = egg:seqcore-server\n"
                   f"sqlalchemy.url = {settings['sqlalchemy.url']}"
                   f"\nseqcore.storage.path = {storage}\n")
    ok = cli(ini, "check")
    assert ok.exit_code == 0, ok.output
    assert "no unreferenced files" in ok.output
    done = cli(ini, "backup", str(tmp_path / "backup"))
    assert done.exit_code == 0, done.output
    assert "copied" in done.output

    # A stray file, a damaged file and a lost one: check lists each and fails.
    (storage / "stray.fastq").write_bytes(b"@r\nACGT\n+\nIIII\n")
    stored = sorted(p for p in storage.rglob("*") if p.is_file() and p.name != "stray.fastq"
                    and "tmp" not in p.relative_to(storage).parts)
    damaged, lost = stored[0], stored[1]
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"X")
    lost.unlink()
    bad = cli(ini, "check")
    assert bad.exit_code == 1
    assert "unreferenced: stray.fastq" in bad.output
    assert f"checksum or size differs: {damaged.relative_to(storage).as_posix()}" in bad.output
    assert f"missing: {lost.relative_to(storage).as_posix()}" in bad.output

    url, new_storage = new_deployment(tmp_path, seqcore_settings, "fromcli")
    restored_ini = tmp_path / "restored.ini"
    restored_ini.write_text(f"[app:main]\nuse = egg:seqcore-server\nsqlalchemy.url = {url}\n"
                            f"seqcore.storage.path = {new_storage}\n")
    assert cli(restored_ini, "restore", str(tmp_path / "backup")).exit_code == 0
    assert cli(restored_ini, "check").exit_code == 0
    refused = cli(restored_ini, "restore", str(tmp_path / "backup"))
    assert refused.exit_code == 1 and "not empty" in refused.output


def test_restore_refuses_a_directory_without_backup(tmp_path, seqcore_settings):
    url, storage = new_deployment(tmp_path, seqcore_settings, "nothing")
    with pytest.raises(BackupError, match="holds no backup"):
        restore(url, storage, tmp_path)


@pytest.mark.skipif(not os.environ.get("SEQCORE_TEST_DATABASE_URL", "").startswith("postgres"),
                    reason="PostgreSQL only")
def test_pg_tools_match_the_server(app_config):
    from sqlalchemy import create_engine, text

    engine = create_engine(make_url(app_config.get_settings()["sqlalchemy.url"]))
    with engine.connect() as conn:
        server = int(conn.execute(text("SHOW server_version_num")).scalar_one())
    engine.dispose()
    check_client_version("pg_dump", server)
    check_client_version("pg_restore", server)
    with pytest.raises(BackupError, match="older than"):
        check_client_version("pg_dump", (server // 10000 + 1) * 10000)


def test_check_and_backup_of_a_database_without_tables_say_so(tmp_path):
    ini = tmp_path / "empty.ini"
    ini.write_text(f"[app:main]\nuse = egg:seqcore-server\nsqlalchemy.url = sqlite:///{tmp_path}/e.db\n"
                   f"seqcore.storage.path = {tmp_path / 'storage'}\n")
    checked = cli(ini, "check")
    assert checked.exit_code == 1 and "no database at" in checked.output
    assert not (tmp_path / "e.db").exists()
    (tmp_path / "e.db").touch()
    checked = cli(ini, "check")
    assert checked.exit_code == 1 and "no tables" in checked.output
    backed = cli(ini, "backup", str(tmp_path / "backup"))
    assert backed.exit_code == 1 and "seqcore db upgrade" in backed.output
    assert not (tmp_path / "backup" / MANIFEST).exists()


def test_long_commands_show_progress_on_a_terminal_only(deployment, app_config, tmp_path):
    """``backup``, ``restore`` and ``check`` draw a progress bar when standard error is a
    terminal, and write nothing of it into a pipe (logs, scripts, cron mail)."""
    import subprocess
    import sys

    from tests.terminal import on_a_terminal

    settings = app_config.get_settings()
    ini = tmp_path / "live.ini"
    ini.write_text(f"[app:main]\nuse = egg:seqcore-server\n"
                   f"sqlalchemy.url = {settings['sqlalchemy.url']}\n"
                   f"seqcore.storage.path = {settings['seqcore.storage.path']}\n")
    command = [sys.executable, "-m", "seqcore.cli", "-c", str(ini)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    def run_on_a_terminal(*args):
        return on_a_terminal([*command, *args], env=env, timeout=300)

    done, drawn = run_on_a_terminal("check")
    assert done.returncode == 0, drawn
    assert "checking stored files" in drawn and "[" in drawn
    piped = subprocess.run([*command, "check"], capture_output=True, text=True, env=env,
                           check=False, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "checking stored files" not in piped.stderr + piped.stdout
    assert "no unreferenced files" in piped.stdout
    done, drawn = run_on_a_terminal("backup", str(tmp_path / "backup"))
    assert done.returncode == 0 and "backing up stored files" in drawn, drawn
    piped = subprocess.run([*command, "backup", str(tmp_path / "backup2")],
                           capture_output=True, text=True, env=env, check=False, timeout=300)
    assert piped.returncode == 0 and "backing up" not in piped.stderr, piped.stderr


def test_restored_exports_show_expired_and_check_finds_a_lost_bundle(
        deployment, testapp, app_config, db, seqcore_settings, seqcore_plugins, tmp_path):
    """Bundles are not backed up: a READY export comes back EXPIRED (never a READY one whose
    download is gone), and check reports a READY export whose bundle is missing."""
    from seqcore.db import utcnow
    from seqcore.exports.jobs import bundle_path
    from seqcore.models.export import DataExport
    from seqcore.models.project import Project

    settings = app_config.get_settings()
    url, storage = settings["sqlalchemy.url"], Path(settings["seqcore.storage.path"])
    headers = deployment["headers"]
    project = db.query(Project).order_by(Project.id).first()
    export = DataExport(project_id=project.id, requester_id=None, name="bundle",
                        state="READY", selection={}, size=4, ready_at=utcnow(),
                        expires_at=utcnow().replace(year=2100))
    db.add(export)
    db.flush()
    export.path = bundle_path(export.id)
    db.commit()
    (storage / export.path).parent.mkdir(parents=True)
    (storage / export.path).write_bytes(b"PK\x05\x06")
    url_of = f"/api/exports/{export.id}"
    assert testapp.get(url_of, headers=headers).json["resource"]["state"] == "READY"
    assert not check(url, storage).problems

    backup(url, storage, tmp_path / "backup")
    restored_url, restored_storage = new_deployment(tmp_path, seqcore_settings, "exports")
    restore(restored_url, restored_storage, tmp_path / "backup")
    restored = app_over(restored_url, restored_storage, seqcore_settings, seqcore_plugins)
    assert restored.get(url_of, headers=headers).json["resource"]["state"] == "EXPIRED"
    res = restored.get(f"{url_of}/download", headers=headers, status=404)
    assert "EXPIRED" in res.json["message"]
    assert not check(restored_url, restored_storage).problems

    (storage / export.path).unlink()  # lost from the running deployment
    assert check(url, storage).problems == [
        f"ready export without its bundle: export {export.id} ({export.path})"]
