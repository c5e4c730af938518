"""The processing chain: QC by the worker, runs gating it, errors, decompression, and a
worker killed mid-processing."""

import functools
import os
import random
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from seqcore.plugin import QCRecord, SequenceFile, SequencingObject, utcnow
from seqcore.testing.server import start_worker
from seqcore.testing.uploads import fastq, gz, multipart, parameters
from seqcore.testing.workers import Worker

HERE = Path(__file__).resolve().parent


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    return sample, factories.headers(owner)


def upload_single(testapp, sample, headers, content, name="a.fastq", run=None):
    parts = [("file", name, content, None)]
    if run is not None:
        parts.append(parameters(miseqRunId=run))
    body, content_type = multipart(parts)
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                       headers={**headers, "Content-Type": content_type})
    links = {link["rel"]: link["href"] for link in res.json["resource"]["links"]}
    return (links["sequenceFile/sequencingObject"].replace("http://localhost", ""),
            res.headers["Location"].replace("http://localhost", ""))


def test_worker_runs_qc(testapp, app_config, world):
    sample, headers = world
    reads = fastq(reads=300, length=75, seed=9)
    obj_url, file_url = upload_single(testapp, sample, headers, gz(reads), "a.fastq.gz")
    testapp.get(file_url + "/qc", headers=headers, status=404)
    assert Worker(app_config.registry).run_until_idle() == 1
    obj = testapp.get(obj_url, headers=headers).json["resource"]
    assert obj["processingState"] == "FINISHED"
    assert obj["fileProcessor"].startswith(f"{os.getpid()}@")
    qc = testapp.get(file_url + "/qc", headers=headers).json["resource"]
    assert (qc["totalSequences"], qc["minLength"], qc["maxLength"]) == (300, 75, 75)
    assert qc["totalBases"] == 300 * 75
    assert qc["encoding"] == "Sanger / Illumina 1.9"
    assert {link["rel"] for link in qc["links"]} == {"self", "qc/sequencefile"}
    assert qc["links"][1]["href"].replace("http://localhost", "") == file_url
    # Files stay as uploaded unless the deployment asks for decompression.
    meta = testapp.get(file_url, headers=headers).json["resource"]
    assert meta["fileName"] == "a.fastq.gz"


def test_decompression_keeps_the_original(build_app, app_config, factories, db):
    import seqcore_sequencefiles.plugin

    app = build_app([seqcore_sequencefiles.plugin], **{"seqcore.processing.decompress": True})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    headers = factories.headers(owner)
    reads = fastq(reads=50, seed=4)
    _, file_url = upload_single(app, sample, headers, gz(reads), "b.fastq.gz")
    Worker(app.app.registry).run_until_idle()
    meta = app.get(file_url, headers=headers).json["resource"]
    assert meta["fileName"] == "b.fastq"
    assert app.get(file_url, headers={**headers, "Accept": "application/fastq"}).body == reads
    record = db.query(SequenceFile).one()
    assert record.revision == 2
    original = Path(app_config.get_settings()["seqcore.storage.path"]) / record.original_path
    assert original.read_bytes()[:2] == b"\x1f\x8b"


def test_run_gates_processing(testapp, app_config, factories, world):
    sample, headers = world
    sequencer = factories.user(role="ROLE_SEQUENCER")
    seq_headers = factories.headers(sequencer)
    run = testapp.post_json("/api/sequencingrun/miseq", {"layoutType": "SINGLE_END"},
                            headers=seq_headers).json["resource"]["identifier"]
    obj_url, _ = upload_single(testapp, sample, seq_headers, fastq(), run=run)
    worker = Worker(app_config.registry)
    assert worker.run_until_idle() == 0
    assert testapp.get(obj_url, headers=headers).json["resource"]["processingState"] == (
        "UNPROCESSED")
    testapp.patch_json(f"/api/sequencingrun/{run}", {"uploadStatus": "COMPLETE"},
                       headers=seq_headers)
    assert worker.run_until_idle() == 1
    assert testapp.get(obj_url, headers=headers).json["resource"]["processingState"] == (
        "FINISHED")


def test_qc_failure_is_recorded_not_raised(testapp, app_config, world):
    sample, headers = world
    # Valid records beyond what the upload check reads (64 KiB), then garbage: it passes
    # the upload check, fails QC.
    content = fastq(reads=1000) + b"this is not a fastq record at all\n" * 5
    obj_url, file_url = upload_single(testapp, sample, headers, content)
    Worker(app_config.registry).run_until_idle()
    obj = testapp.get(obj_url, headers=headers).json["resource"]
    assert obj["processingState"] == "ERROR"
    assert obj["processingError"].startswith("QC failed:")
    testapp.get(file_url + "/qc", headers=headers, status=404)


def test_interrupted_too_often_becomes_error(testapp, app_config, engine, world, db):
    sample, headers = world
    obj_url, _ = upload_single(testapp, sample, headers, fastq())
    with engine.begin() as conn:
        conn.execute(update(SequencingObject).values(
            processing_state="PROCESSING", file_processor="999@gone", attempts=2,
            lease_until=utcnow() - timedelta(seconds=1)))
    Worker(app_config.registry).recover()
    obj = testapp.get(obj_url, headers=headers).json["resource"]
    assert obj["processingState"] == "ERROR"
    assert "interrupted 3 times" in obj["processingError"]


def _state(engine, object_id):
    with engine.connect() as conn:
        return conn.execute(
            SequencingObject.__table__.select().where(SequencingObject.id == object_id)
        ).mappings().one()


def _wait(engine, object_id, states, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = _state(engine, object_id)
        if row["processing_state"] in states:
            return row
        time.sleep(0.2)
    raise AssertionError(f"object {object_id} stuck in {row['processing_state']}")


def test_worker_killed_mid_processing_is_recovered(testapp, app_config, engine, database_url,
                                                   world, tmp_path, db, monkeypatch):
    sample, headers = world
    obj_url, file_url = upload_single(testapp, sample, headers, fastq(reads=100))
    object_id = int(obj_url.rsplit("/", 1)[1])
    monkeypatch.syspath_prepend(str(HERE))  # the workers import slow_qc from here
    settings = {**app_config.get_settings(), "sqlalchemy.url": database_url}
    options = {"seqcore.plugins.enabled": "sequencefiles",
               "seqcore.processing.lease_seconds": "3"}
    slow = start_worker(tmp_path, settings, **options, **{"seqcore.plugins.modules": "slow_qc"})
    try:
        row = _wait(engine, object_id, {"PROCESSING"})
        assert row["file_processor"].startswith(f"{slow.pid}@")
    finally:
        slow.send_signal(signal.SIGKILL)
        slow.wait()
    assert _state(engine, object_id)["processing_state"] == "PROCESSING"
    healthy = start_worker(tmp_path, settings, **options)
    try:
        row = _wait(engine, object_id, {"FINISHED", "ERROR"})
    finally:
        healthy.terminate()
        healthy.wait(timeout=30)
    assert row["processing_state"] == "FINISHED", row["processing_error"]
    assert row["attempts"] == 1
    assert row["file_processor"].startswith(f"{healthy.pid}@")
    assert db.query(QCRecord).count() == 1
    assert testapp.get(file_url + "/qc", headers=headers).json["resource"]["totalSequences"] == 100


BASES = bytes(b"ACGT"[i % 4] for i in range(256))
QUALS = bytes(33 + i % 41 for i in range(256))


@functools.cache
def large_gzip() -> bytes:
    """Several MB of gzip, so the damage lies beyond the first block checked on arrival;
    made once for the three kinds of damage (bytes are immutable: each test damages a copy)."""
    rng = random.Random(4)
    return gz(b"".join(b"@r%d\n%s\n+\n%s\n" % (i, rng.randbytes(100).translate(BASES),
                                                rng.randbytes(100).translate(QUALS))
                       for i in range(40_000)))


@pytest.mark.parametrize("damage", ["truncated", "checksum", "flipped"])
def test_large_gzip_is_verified_by_the_worker(build_app, app_config, factories, damage):
    """Uploads above seqcore.upload.verify_gzip_max_bytes are checked at their start on
    arrival; the worker reads every byte and marks a damaged file ERROR with the reason."""
    import seqcore_sequencefiles.plugin

    app = build_app([seqcore_sequencefiles.plugin],
                    **{"seqcore.upload.verify_gzip_max_bytes": 1000})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner), name="large-1")
    headers = factories.headers(owner)
    packed = large_gzip()
    assert len(packed) > 3 << 20
    if damage == "truncated":
        packed = packed[:-2000]
    elif damage == "checksum":  # the gzip trailer's CRC-32 no longer matches the content
        packed = packed[:-8] + bytes(b ^ 0xFF for b in packed[-8:-4]) + packed[-4:]
    else:
        middle = len(packed) // 2
        packed = packed[:middle] + bytes(b ^ 0x5A for b in packed[middle:middle + 64]) + \
            packed[middle + 64:]
    obj_url, file_url = upload_single(app, sample, headers, packed, "big.fastq.gz")
    Worker(app_config.registry).run_until_idle()
    obj = app.get(obj_url, headers=headers).json["resource"]
    assert obj["processingState"] == "ERROR"
    reason = obj["processingError"]
    assert reason.startswith("QC failed:")
    if damage == "truncated":
        assert "compressed file ended" in reason.lower()
    elif damage == "checksum":
        assert "crc" in reason.lower()
    app.get(file_url + "/qc", headers=headers, status=404)
    # Within the limit, the same bytes are refused on arrival.
    body, content_type = multipart([("file", "big.fastq.gz", packed, None)])
    res = build_app([seqcore_sequencefiles.plugin]).post(
        f"/api/samples/{sample.id}/unpaired", body,
        headers={**headers, "Content-Type": content_type}, status=400)
    assert "gzip" in res.json["message"]
