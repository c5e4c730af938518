"""Bad or odd input gives correct numbers or a QCError with a reason, never anything else.

Files FastQC itself reads (CRLF, blank lines, lowercase, colorspace, no final newline)
are compared with FastQC in ``test_fastqc_parity``; this module covers input FastQC
rejects too, and the clean-up of worker processes when a file turns out to be bad.
"""

from __future__ import annotations

import bz2
import gzip
import multiprocessing
import pathlib

import pytest

from seqcore.qc import FastQCCompatibleEngine, QCEngine, QCError, QCReport

from .fastq_data import fastq_text, mixed_records, write_fastq

pytestmark = pytest.mark.database_independent

SERIAL = FastQCCompatibleEngine(processes=1)
# "spawn" workers are children of the test process, so their clean-up can be checked.
PARALLEL = FastQCCompatibleEngine(
    processes=2, parallel_threshold=0, chunk_size=8 * 1024, start_method="spawn"
)
ENGINES = [pytest.param(SERIAL, id="serial"), pytest.param(PARALLEL, id="parallel")]


def _qc_error(engine: FastQCCompatibleEngine, path: pathlib.Path) -> str:
    with pytest.raises(QCError) as caught:
        engine.run(path)
    assert caught.value.reason
    assert not multiprocessing.active_children(), "worker processes were left behind"
    return caught.value.reason


def test_engine_implements_the_protocol() -> None:
    assert isinstance(SERIAL, QCEngine)


def test_report_to_dict_is_json_ready(tmp_path: pathlib.Path) -> None:
    import json

    path = write_fastq(tmp_path / "r.fastq", mixed_records(1, 300))
    data = SERIAL.run(path).to_dict()
    assert list(data) == [
        "fileType",
        "encoding",
        "totalSequences",
        "filteredSequences",
        "totalBases",
        "minLength",
        "maxLength",
        "gcContent",
        "overrepresentedSequences",
        "perBaseQuality",
        "perSequenceQuality",
        # Stored for the QC report page; REST leaves them out (tests/functional).
        "perBaseCounts",
        "lengthCounts",
        "gcDistribution",
        # The reads' names carry no tile: per-tile quality is not measured.
        "duplicationLevels",
        "adapterContent",
    ]
    assert set(data["overrepresentedSequences"][0]) == {
        "sequence",
        "overrepresentedSequenceCount",
        "percentage",
        "possibleSource",
    }
    json.dumps(data, allow_nan=False)


@pytest.mark.parametrize("engine", ENGINES)
def test_gzip_is_detected_by_content_not_name(
    engine: FastQCCompatibleEngine, tmp_path: pathlib.Path
) -> None:
    records = mixed_records(2, 2000)
    plain = write_fastq(tmp_path / "reads.fastq", records)
    disguised = tmp_path / "reads.txt"
    disguised.write_bytes(gzip.compress(plain.read_bytes()))
    assert engine.run(disguised) == SERIAL.run(plain)


@pytest.mark.parametrize("engine", ENGINES)
def test_record_longer_than_a_chunk(engine: FastQCCompatibleEngine, tmp_path: pathlib.Path) -> None:
    records = mixed_records(3, 500)
    records[250] = ("long", "ACGT" * 10_000, "I" * 40_000)
    path = write_fastq(tmp_path / "long.fastq", records)
    report = engine.run(path)
    assert report.max_length == 40_000
    assert report.total_sequences == 500
    assert report == SERIAL.run(path)


def test_zero_length_reads_count_as_reads(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "empty_reads.fastq"
    path.write_text("@a\nACGT\n+\nIIII\n@b\n\n+\n\n@c\nGG\n+\nII\n")
    report = SERIAL.run(path)
    assert (report.total_sequences, report.min_length, report.max_length) == (3, 0, 4)
    assert report.total_bases == 6
    assert report.gc_content == 66  # 4 of 6 bases, truncated
    assert sum(report.per_sequence_quality.values()) == 2  # empty reads have no mean


@pytest.mark.parametrize("engine", ENGINES)
def test_crlf_in_parallel_path_falls_back_to_tolerant_reading(
    engine: FastQCCompatibleEngine, tmp_path: pathlib.Path
) -> None:
    records = mixed_records(4, 2000)
    lf = write_fastq(tmp_path / "lf.fastq", records)
    crlf = write_fastq(tmp_path / "crlf.fastq", records, newline="\r\n")
    assert engine.run(crlf) == SERIAL.run(lf)


# -- input that cannot be QC'd ------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_multiline_fastq_is_rejected(
    engine: FastQCCompatibleEngine, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "multiline.fastq"
    text = fastq_text(mixed_records(5, 300, lengths=(60,)))
    path.write_text(text + "@wrapped\nACGTACGTAC\nGTACGTACGT\n+\nIIIIIIIIII\nIIIIIIIIII\n")
    assert "multi-line" in _qc_error(engine, path)


@pytest.mark.parametrize("engine", ENGINES)
def test_truncated_final_record_is_rejected(
    engine: FastQCCompatibleEngine, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "truncated.fastq"
    path.write_text(fastq_text(mixed_records(6, 300)) + "@cut\nACGTACGT\n+\n")
    assert "truncated" in _qc_error(engine, path)


@pytest.mark.parametrize("engine", ENGINES)
def test_truncated_gzip_is_rejected(engine: FastQCCompatibleEngine, tmp_path: pathlib.Path) -> None:
    path = write_fastq(tmp_path / "whole.fastq.gz", mixed_records(7, 3000))
    cut = tmp_path / "cut.fastq.gz"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _qc_error(engine, cut)


@pytest.mark.parametrize("engine", ENGINES)
def test_corrupt_gzip_is_rejected(engine: FastQCCompatibleEngine, tmp_path: pathlib.Path) -> None:
    data = bytearray(write_fastq(tmp_path / "w.fastq.gz", mixed_records(8, 3000)).read_bytes())
    for position in range(100, len(data) - 100, 97):
        data[position] ^= 0x5A
    path = tmp_path / "corrupt.fastq.gz"
    path.write_bytes(bytes(data))
    _qc_error(engine, path)


@pytest.mark.parametrize("engine", ENGINES)
def test_sequence_and_quality_of_different_length(
    engine: FastQCCompatibleEngine, tmp_path: pathlib.Path
) -> None:
    records = mixed_records(9, 600, lengths=(50,))
    header, sequence, quality = records[400]
    records[400] = (header, sequence, quality[:-1])
    path = write_fastq(tmp_path / "mismatch.fastq", records)
    reason = _qc_error(engine, path)
    assert "record 401" in reason


@pytest.mark.parametrize("engine", ENGINES)
def test_invalid_quality_character(engine: FastQCCompatibleEngine, tmp_path: pathlib.Path) -> None:
    records = mixed_records(10, 600, lengths=(50,))
    header, sequence, quality = records[300]
    records[300] = (header, sequence, " " + quality[1:])
    path = write_fastq(tmp_path / "space.fastq", records)
    reason = _qc_error(engine, path)
    assert "record 301" in reason and "32" in reason


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("empty.fastq", b"", "empty"),
        ("blank.fastq", b"\n\n\n", "empty"),
        ("reads.fasta", b">r1\nACGT\n>r2\nGGCC\n", "not a FASTQ"),
        ("binary.fastq", bytes(range(256)) * 10, "not a FASTQ"),
        ("tiny.fastq", b"@", "truncated"),
        ("reads.fastq.bz2", bz2.compress(b"@r\nA\n+\nI\n"), "bzip2"),
        ("only_empty_reads.fastq", b"@a\n\n+\n\n@b\n\n+\n\n", "empty"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_not_fastq(
    engine: FastQCCompatibleEngine,
    tmp_path: pathlib.Path,
    name: str,
    content: bytes,
    expected: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert expected in _qc_error(engine, path)


def test_missing_file(tmp_path: pathlib.Path) -> None:
    assert "does not exist" in _qc_error(SERIAL, tmp_path / "nope.fastq")


def test_directory(tmp_path: pathlib.Path) -> None:
    assert "not a regular file" in _qc_error(SERIAL, tmp_path)


def test_bad_chunk_in_the_middle_stops_workers(tmp_path: pathlib.Path) -> None:
    """An error found by a worker mid-file raises QCError and leaves no process behind."""
    records = mixed_records(11, 20_000, lengths=(100,))
    header, sequence, quality = records[15_000]
    records[15_000] = (header, sequence, quality[:-5])
    path = write_fastq(tmp_path / "bad_middle.fastq", records)
    assert "record 15001" in _qc_error(PARALLEL, path)


def test_report_is_frozen(tmp_path: pathlib.Path) -> None:
    report = SERIAL.run(write_fastq(tmp_path / "f.fastq", mixed_records(12, 200)))
    assert isinstance(report, QCReport)
    with pytest.raises(AttributeError):
        report.total_sequences = 1  # type: ignore[misc]
