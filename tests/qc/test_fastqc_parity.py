"""The engine's numbers equal FastQC's on generated files, including its odd corners.

FastQC runs once with ``--nogroup`` over all files, so positions can be compared one by
one (and the length distribution gives exact total bases); it runs once more without it
on a file with long reads, to check FastQC's default position groups.
"""

from __future__ import annotations

import pathlib
import random

import pytest

from seqcore.qc import FastQCCompatibleEngine, QCReport

from .fastq_data import (
    ADAPTER,
    FastQCResult,
    Record,
    assert_matches_fastqc,
    fastqc_available,
    fastqc_data_path,
    mixed_records,
    random_quality,
    random_sequence,
    run_fastqc,
    write_fastq,
)

# xdist_group: FastQC's module-scoped runs (tens of seconds) are made once, on one worker,
# rather than once on each worker the module's tests are spread over.
pytestmark = [
    pytest.mark.skipif(not fastqc_available(),
                       reason="the fastqc binary is not installed (apt-get install fastqc)"),
    pytest.mark.database_independent,
    pytest.mark.xdist_group("fastqc_parity"),
]

SERIAL = FastQCCompatibleEngine(processes=1)
# Many tiny chunks over two worker processes: exercises ordering, merging and the
# broadcast of the frozen overrepresented-sequence dictionary.
PARALLEL = FastQCCompatibleEngine(processes=2, parallel_threshold=0, chunk_size=16 * 1024)


def _short_records(seed: int, count: int) -> list[Record]:
    """Reads of at most 75 bp (counted whole), with duplicates that FastQC reports."""
    rng = random.Random(seed)
    duplicate = random_sequence(rng, 60)
    adapter_piece = ADAPTER[3:18]  # 15 bp: FastQC's exact-substring rule for 8-19 bp
    records = []
    for index in range(count):
        roll = rng.random()
        if roll < 0.01:
            sequence = duplicate
        elif roll < 0.02:
            sequence = adapter_piece
        else:
            sequence = random_sequence(rng, rng.randint(10, 75), 0.02)
        records.append((f"short{index}", sequence, random_quality(rng, len(sequence))))
    return records


def _colorspace_records(seed: int, count: int) -> list[Record]:
    rng = random.Random(seed)
    records = []
    for index in range(count):
        colours = "".join(rng.choices("0123", k=35))
        if index % 10 == 0:
            colours = colours[:20] + "." + colours[21:]
        records.append((f"cs{index}", "T" + colours, random_quality(rng, len(colours))))
    return records


def _tracking_limit_records() -> list[Record]:
    """More than 100,000 distinct reads, then a frequent one FastQC no longer tracks.

    ``early`` is tracked before the dictionary fills up and keeps counting after it; the
    frequent ``late`` sequence first appears after that and must not be reported.
    """
    rng = random.Random(7)
    early = "ACGTTGCA" * 4
    late = "TTGGCCAA" * 4
    records: list[Record] = []
    quality = "I" * 32
    for index in range(100_100):
        sequence = early if index % 1000 == 0 else random_sequence(rng, 32)
        records.append((f"d{index}", sequence, quality))
    for index in range(400):
        records.append((f"late{index}", late, quality))
        records.append((f"early{index}", early if index % 2 else random_sequence(rng, 32), quality))
    return records


def _generate(directory: pathlib.Path) -> dict[str, pathlib.Path]:
    duplicate = "GATTACA" * 5 + "N" + "CATTAG" * 5
    mixed = mixed_records(1, 4000, duplicate=duplicate, duplicate_fraction=0.003)
    lowercase = [
        (h, s.lower() if i % 3 == 0 else s, q) for i, (h, s, q) in enumerate(mixed_records(8, 1500))
    ]
    illumina13 = mixed_records(4, 400, offset=64, low=2)
    header, sequence, quality = illumina13[5]
    illumina13[5] = (
        (header, "ACGT" + sequence[4:], "AAAA" + quality[4:])
        if sequence
        else (header, "ACGT", "AAAA")
    )
    at64 = mixed_records(5, 400, offset=64, low=0)
    files = {
        "mixed": write_fastq(directory / "mixed.fastq", mixed),
        "mixed_gz": write_fastq(directory / "mixedgz.fastq.gz", mixed_records(2, 4000)),
        "phred64": write_fastq(directory / "phred64.fastq", mixed_records(3, 3000, offset=64)),
        "illumina13": write_fastq(directory / "illumina13.fastq", illumina13),
        "at64": write_fastq(directory / "at64.fastq", at64),
        "short": write_fastq(directory / "short.fq", _short_records(6, 3000)),
        "lowercase": write_fastq(directory / "lowercase.fastq", lowercase),
        "crlf": write_fastq(directory / "crlf.fastq", mixed_records(9, 1500), newline="\r\n"),
        "colorspace": write_fastq(directory / "colorspace.fastq", _colorspace_records(10, 500)),
        "tracking_limit": write_fastq(directory / "tracking.fastq.gz", _tracking_limit_records()),
    }
    blank = mixed_records(11, 1500)
    text = "".join(
        f"@{h}\n{s}\n+\n{q}\n" + ("\n\n" if i % 100 == 0 else "")
        for i, (h, s, q) in enumerate(blank)
    )
    files["blank_lines"] = directory / "blank_lines.fastq"
    files["blank_lines"].write_text(text)
    files["no_final_newline"] = directory / "no_final_newline.fastq"
    files["no_final_newline"].write_text(text.rstrip("\n"))
    return files


@pytest.fixture(scope="module")
def fastqc_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[pathlib.Path, FastQCResult]]:
    directory = tmp_path_factory.mktemp("fastqc")
    files = _generate(directory)
    run_fastqc(list(files.values()), directory / "nogroup", nogroup=True)
    results = {}
    for name, path in files.items():
        data = fastqc_data_path(path, directory / "nogroup")
        assert data.exists(), f"FastQC produced no report for {path.name}"
        results[name] = (path, FastQCResult.load(data))
    return results


@pytest.fixture(scope="module")
def grouped_run(
    fastqc_runs: dict, tmp_path_factory: pytest.TempPathFactory
) -> tuple[pathlib.Path, FastQCResult]:
    path = fastqc_runs["mixed"][0]
    out = tmp_path_factory.mktemp("fastqc-grouped")
    run_fastqc([path], out, nogroup=False)
    return path, FastQCResult.load(fastqc_data_path(path, out))


CASES = [
    "mixed",
    "mixed_gz",
    "phred64",
    "illumina13",
    "at64",
    "short",
    "lowercase",
    "crlf",
    "colorspace",
    "tracking_limit",
    "blank_lines",
    "no_final_newline",
]


@pytest.mark.parametrize("case", CASES)
def test_serial_engine_matches_fastqc(fastqc_runs: dict, case: str) -> None:
    path, fastqc = fastqc_runs[case]
    assert_matches_fastqc(SERIAL.run(path), fastqc)


@pytest.mark.parametrize("case", CASES)
def test_parallel_engine_matches_serial_engine(fastqc_runs: dict, case: str) -> None:
    path, fastqc = fastqc_runs[case]
    parallel = PARALLEL.run(path)
    assert parallel == SERIAL.run(path)
    assert_matches_fastqc(parallel, fastqc)


def test_grouped_per_base_quality_matches_fastqc_default_groups(grouped_run: tuple) -> None:
    path, fastqc = grouped_run
    assert_matches_fastqc(SERIAL.run(path), fastqc, nogroup=False)


def test_expected_fastqc_behaviour_is_exercised(fastqc_runs: dict) -> None:
    """Guards the generators: each file really hits the FastQC rule it is meant for."""
    reports: dict[str, QCReport] = {
        name: SERIAL.run(path) for name, (path, _) in fastqc_runs.items()
    }
    assert reports["phred64"].encoding == "Illumina 1.5"
    assert reports["illumina13"].encoding == "Illumina 1.3"
    assert reports["at64"].encoding == "Illumina 1.5"
    assert reports["mixed"].min_length == 0 and reports["mixed"].max_length > 75
    assert reports["colorspace"].file_type == "Colorspace converted to bases"
    sources = {o.possible_source for o in reports["mixed"].overrepresented_sequences}
    assert any(source != "No Hit" for source in sources)
    adapter_rows = [
        o for o in reports["mixed"].overrepresented_sequences if "Adapter" in o.possible_source
    ]
    assert adapter_rows and all(len(o.sequence) == 50 for o in adapter_rows)
    short = {o.sequence for o in reports["short"].overrepresented_sequences}
    assert ADAPTER[3:18] in short
    tracked = {o.sequence for o in reports["tracking_limit"].overrepresented_sequences}
    assert "ACGTTGCA" * 4 in tracked and "TTGGCCAA" * 4 not in tracked
