"""A refused upload leaves nothing: no row, no file, no temporary file, no directory.

The storage tree is walked after every refusal; the only thing allowed to remain is the
empty ``tmp`` directory uploads are received into.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingRun
from seqcore.testing.uploads import fastq, gz, multipart, parameters


def leftovers(root: str | Path) -> list[Path]:
    """Every file and directory in storage but an empty ``tmp``."""
    base = Path(root)
    return sorted(p for p in base.rglob("*")
                  if not (p == base / "tmp" and p.is_dir() and not any(p.iterdir())))


@pytest.fixture
def world(factories, db):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    admin = factories.user(username="admin", role="ROLE_ADMIN")
    run = SequencingRun(sequencer_type="miseq", layout_type="PAIRED_END",
                        upload_status="COMPLETE", user_id=admin.id)
    db.add(run)
    db.commit()
    return sample, factories.headers(owner), run.id


def params_file(name: str, content: bytes) -> tuple[str, str, bytes, str]:
    """A parameters part sent as a file (``curl -F parameters=@p.json``)."""
    return (name, "params.json", content, "application/json")


R1, R2 = ("file1", "x_R1.fastq", fastq(seed=1), None), ("file2", "x_R2.fastq", fastq(seed=2), None)
LONG = "n" * 250 + "_R1.fastq"

REFUSALS = [
    ("unpaired", "parameters file with bad JSON",
     [("file", "a.fastq", fastq(), None), params_file("parameters", b"{nope")], 400),
    ("unpaired", "parameters not an object",
     [("file", "a.fastq", fastq(), None), ("parameters", None, b"[1]", None)], 400),
    ("unpaired", "name over 255 bytes", [("file", LONG, fastq(), None)], 400),
    ("unpaired", "run not uploading", [("file", "a.fastq", fastq(), None), "RUN"], 400),
    ("unpaired", "bad gzip", [("file", "a.fastq.gz", gz(fastq(reads=300))[:-10], None)], 400),
    ("unpaired", "missing file part", [parameters()], 400),
    ("unpaired", "file part without a file name", [("file", None, fastq(), None)], 400),
    ("unpaired", "unknown part after the file",
     [("file", "a.fastq", fastq(), None), ("extra", "b.fastq", fastq(seed=3), None)], 400),
    ("unpaired", "repeated part",
     [("file", "a.fastq", fastq(), None), ("file", "b.fastq", fastq(), None)], 400),
    ("unpaired", "not FASTQ", [("file", "a.fastq", b"hello\n", None)], 400),
    ("pairs", "second name over 255 bytes", [R1, ("file2", LONG, fastq(seed=2), None)], 400),
    ("pairs", "missing second file", [R1], 400),
    ("pairs", "names that cannot be told apart",
     [("file1", "a.fastq", fastq(seed=1), None), ("file2", "b.fastq", fastq(seed=2), None)],
     400),
    ("pairs", "parameters1 file with bad JSON", [R1, R2, params_file("parameters1", b"{")], 400),
    ("pairs", "run not uploading", [R1, R2, "RUN"], 400),
]


@pytest.mark.parametrize(("kind", "case", "parts", "status"), REFUSALS,
                         ids=[f"{r[0]}: {r[1]}" for r in REFUSALS])
def test_a_refused_upload_leaves_nothing(testapp, world, db, app_config, kind, case, parts,
                                         status):
    sample, headers, run_id = world
    parts = [parameters(miseqRunId=run_id) if p == "RUN" else p for p in parts]
    if kind == "pairs":
        parts = [("parameters1", None, f'{{"miseqRunId": {run_id}}}'.encode(), None)
                 if p[0] == "parameters" else p for p in parts]
    body, content_type = multipart(parts)
    res = testapp.post(f"/api/samples/{sample.id}/{kind}", body, status=status,
                       headers={**headers, "Content-Type": content_type})
    assert res.json["message"]
    assert db.query(SequencingObject).count() == 0
    assert db.query(SequenceFile).count() == 0
    assert leftovers(app_config.get_settings()["seqcore.storage.path"]) == []


def test_oversize_and_not_multipart_leave_nothing(build_app, factories, world, db, app_config):
    sample, headers, _ = world
    small = build_app(**{"seqcore.upload.max_bytes": 4096})
    body, content_type = multipart([("file", "big.fastq", fastq(reads=400), None)])
    small.post(f"/api/samples/{sample.id}/unpaired", body, status=413,
               headers={**headers, "Content-Type": content_type})
    small.post(f"/api/samples/{sample.id}/unpaired", body, status=415,
               headers={**headers, "Content-Type": "application/octet-stream"})
    assert db.query(SequenceFile).count() == 0
    assert leftovers(app_config.get_settings()["seqcore.storage.path"]) == []


def test_a_parameters_part_sent_as_a_file_is_read_and_leaves_no_temporary_file(
        testapp, world, app_config):
    sample, headers, _ = world
    body, content_type = multipart([("file", "a.fastq", fastq(), None),
                                    params_file("parameters", b'{"note": "from a file"}')])
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                       headers={**headers, "Content-Type": content_type})
    assert res.json["resource"]["note"] == "from a file"
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    assert [p.name for p in leftovers(root) if p.is_file()] == ["a.fastq"]
    assert list((root / "tmp").iterdir()) == []
