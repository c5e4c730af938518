"""``seqcore storage migrate``: a deployment's stored files go from the local directory to an
S3 bucket, from there to an Azure container and back to a directory, each copy verified by
checksum; a second run copies nothing, a lost or altered file is reported (exit 1), and
--prune removes what the target holds that the source no longer does."""

from __future__ import annotations

import itertools
from pathlib import Path

from click.testing import CliRunner

from seqcore.cli import main
from seqcore.storage.backends import backend_from_settings
from seqcore.testing.uploads import fastq


def _ini(path: Path, database: str, storage: str, extra: dict[str, str]) -> Path:
    lines = ["[app:main]", "use = egg:seqcore-server", f"sqlalchemy.url = {database}",
             f"seqcore.storage.path = {storage}"]
    lines += [f"{key} = {value}" for key, value in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(ini: Path, *args: str):
    return CliRunner().invoke(main, ["-c", str(ini), "storage", "migrate", *args],
                              catch_exceptions=False)


def test_migrate_local_s3_azure_and_back(app_config, factories, s3_server, azure_server,
                                         tmp_path, monkeypatch):
    for variable in ("SEQCORE_STORAGE_BACKEND", "SEQCORE_STORAGE_BUCKET"):
        monkeypatch.delenv(variable, raising=False)
    settings = app_config.get_settings()
    database, local = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    sample = factories.sample(project=factories.project())
    factories.sequencing_object(sample, kind="unpaired")
    factories.sequencing_object(sample, kind="unpaired")
    s3 = s3_server.settings()
    azure = azure_server.settings()
    back = tmp_path / "back"
    inis = [_ini(tmp_path / "local.ini", database, local, {}),
            _ini(tmp_path / "s3.ini", database, local, s3),
            _ini(tmp_path / "azure.ini", database, local, azure),
            _ini(tmp_path / "back.ini", database, str(back), {})]
    source_keys = sorted(backend_from_settings(settings, Path(local)).stored_keys())
    assert len(source_keys) == 2
    for source, target in itertools.pairwise(inis):
        first = _run(source, "--to", str(target))
        assert first.exit_code == 0, first.output
        assert "2 copied" in first.output and "every stored file is in" in first.output
        again = _run(source, "--to", str(target))
        assert "0 copied" in again.output and "2 already there and intact" in again.output
    copied = backend_from_settings({"seqcore.storage.path": str(back)}, back)
    assert sorted(copied.stored_keys()) == source_keys
    for key in source_keys:
        assert (back / key).read_bytes() == (Path(local) / key).read_bytes()


def test_an_altered_file_is_reported_and_extra_objects_are_pruned(
        app_config, factories, s3_server, tmp_path):
    settings = app_config.get_settings()
    database, local = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    sample = factories.sample(project=factories.project())
    factories.sequencing_object(sample, kind="unpaired")
    s3 = s3_server.settings()
    source_ini = _ini(tmp_path / "local.ini", database, local, {})
    target_ini = _ini(tmp_path / "s3.ini", database, local, s3)
    target = backend_from_settings(s3, Path(local))
    stray = tmp_path / "stray"
    stray.write_bytes(fastq())
    target.put_file("aa/deleted-since/x.fastq", stray)
    [key] = backend_from_settings(settings, Path(local)).stored_keys()
    (Path(local) / key).write_bytes(b"altered")
    altered = _run(source_ini, "--to", str(target_ini))
    assert altered.exit_code == 1
    assert f"checksum differs: {key}" in altered.output
    assert "1 in the target only" in altered.output
    pruned = _run(source_ini, "--to", str(target_ini), "--prune")
    assert "1 removed from the target" in pruned.output
    assert "aa/deleted-since/x.fastq" not in set(target.stored_keys())


def test_check_verifies_the_objects_and_backup_points_to_versioning(
        app_config, factories, s3_server, tmp_path):
    settings = app_config.get_settings()
    database, local = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    sample = factories.sample(project=factories.project())
    factories.sequencing_object(sample, kind="unpaired")
    s3 = s3_server.settings()
    target_ini = _ini(tmp_path / "s3.ini", database, local, s3)
    assert _run(_ini(tmp_path / "local.ini", database, local, {}),
                "--to", str(target_ini)).exit_code == 0

    def cli(*args: str):
        return CliRunner().invoke(main, ["-c", str(target_ini), *args],
                                  catch_exceptions=False)

    ok = cli("check")
    assert ok.exit_code == 0, ok.output
    assert "1 stored files present and intact" in ok.output
    target = backend_from_settings(s3, Path(local))
    [key] = target.stored_keys()
    altered = tmp_path / "altered"
    altered.write_bytes(b"@r\nA\n+\nI\n")
    target.put_file(key, altered)
    target.put_file("zz/stray/y.fastq", altered)
    bad = cli("check")
    assert bad.exit_code == 1
    assert f"checksum or size differs: {key}" in bad.output
    assert "unreferenced: zz/stray/y.fastq" in bad.output
    refused = cli("backup", str(tmp_path / "backup"))
    assert refused.exit_code == 1 and "versioning" in refused.output


def test_the_buckets_versioning_brings_back_what_check_finds_missing(
        app_config, factories, s3_server, tmp_path):
    """An object store is backed up by its own versioning (``seqcore backup`` and
    ``restore`` refuse it): after an object is lost, the documented step (removing its
    delete marker, which makes the version it had current again) brings it back whole, and
    ``seqcore check`` says so."""
    settings = app_config.get_settings()
    database, local = settings["sqlalchemy.url"], settings["seqcore.storage.path"]
    sample = factories.sample(project=factories.project())
    factories.sequencing_object(sample, kind="unpaired")
    s3 = s3_server.settings()
    client = s3_server.boto3_client()
    bucket = s3["seqcore.storage.bucket"]
    client.put_bucket_versioning(Bucket=bucket,
                                 VersioningConfiguration={"Status": "Enabled"})
    target_ini = _ini(tmp_path / "s3.ini", database, local, s3)
    assert _run(_ini(tmp_path / "local.ini", database, local, {}),
                "--to", str(target_ini)).exit_code == 0

    def cli(*args: str):
        return CliRunner().invoke(main, ["-c", str(target_ini), *args],
                                  catch_exceptions=False)

    assert cli("check").exit_code == 0
    target = backend_from_settings(s3, Path(local))
    [key] = target.stored_keys()
    target.delete(key)  # lost: deleted by mistake, or by a purge the database does not know
    lost = cli("check")
    assert lost.exit_code == 1 and f"missing: {key}" in lost.output
    (tmp_path / "backup").mkdir()
    restore = cli("restore", str(tmp_path / "backup"))
    assert restore.exit_code == 1 and "versioning" in restore.output
    # docs/operations.md, "Storage backends": list the key's versions, delete its marker.
    versions = client.list_object_versions(Bucket=bucket, Prefix=key)
    [marker] = [m for m in versions["DeleteMarkers"] if m["IsLatest"]]
    client.delete_object(Bucket=bucket, Key=key, VersionId=marker["VersionId"])
    back = cli("check")
    assert back.exit_code == 0, back.output
    assert "1 stored files present and intact" in back.output
