"""Duplication levels, adapter content and per-tile quality on small files whose tables
can be worked out by hand (FastQC's definitions), the verdicts' limits, and the same
tables from every path through the engine (serial, worker processes, tolerant reader).

``test_verdicts.py`` compares the same tables with FastQC's own output where FastQC is
installed; these tests run everywhere.
"""

from __future__ import annotations

import pathlib
import random

import pytest

from seqcore.qc import FastQCCompatibleEngine
from seqcore.qc import verdicts as v
from seqcore.qc.fastqc_modules import corrected_count

from .fastq_data import random_sequence, write_fastq

pytestmark = pytest.mark.database_independent

SERIAL = FastQCCompatibleEngine(processes=1)
UNIVERSAL = "AGATCGGAAGAG"
NEXTERA = "CTGTCTCTTATA"


def _run(tmp_path: pathlib.Path, records: list[tuple[str, str, str]]):
    return SERIAL.run(write_fastq(tmp_path / "reads.fastq", records))


def test_duplication_levels_of_a_small_file(tmp_path: pathlib.Path) -> None:
    rng = random.Random(1)
    x, y = random_sequence(rng, 30), random_sequence(rng, 30)
    sequences = [x] * 5 + [y] * 2 + [random_sequence(rng, 30) for _ in range(3)]
    report = _run(tmp_path, [(f"r{i}", s, "I" * len(s)) for i, s in enumerate(sequences)])
    levels = report.duplication
    # 5 distinct sequences among 10 reads: 3 seen once, 1 twice, 1 five times.
    assert levels.deduplicated_percentage == pytest.approx(50.0)
    assert levels.levels[:10] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", ">10"]
    assert levels.deduplicated[:5] == pytest.approx([60, 20, 0, 0, 20])
    assert levels.total[:5] == pytest.approx([30, 20, 0, 0, 50])
    assert sum(levels.deduplicated[5:]) == 0 and sum(levels.total[5:]) == 0
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.DUPLICATION_LEVELS] == v.Verdict.WARN  # 50 is not below 50


def test_long_reads_are_compared_on_their_first_50_bases(tmp_path: pathlib.Path) -> None:
    rng = random.Random(2)
    head = random_sequence(rng, 50)
    sequences = [head + random_sequence(rng, 30) for _ in range(4)]
    report = _run(tmp_path, [(f"r{i}", s, "I" * len(s)) for i, s in enumerate(sequences)])
    assert report.duplication.deduplicated_percentage == pytest.approx(25.0)
    assert report.duplication.total[3] == pytest.approx(100.0)


def test_the_correction_for_untracked_sequences() -> None:
    # Every tracked sequence seen: nothing to correct.
    assert corrected_count(1000, 1000, 3, 7) == 7.0
    # One read in ten tracked, sequences with 2 copies: P(seen) = 1 - (1 - 1/10)^2 roughly.
    corrected = corrected_count(10_000, 100_000, 2, 100)
    assert corrected == pytest.approx(100 / (1 - 0.9**2), rel=1e-3)


def test_adapters_at_known_positions(tmp_path: pathlib.Path) -> None:
    rng = random.Random(3)

    def read(adapter: str = "", at: int = 0) -> str:
        sequence = random_sequence(rng, 40).replace("AGATC", "AGTTC")
        return (sequence[:at] + adapter + sequence)[:40]

    sequences = [
        read(UNIVERSAL, 10), read(UNIVERSAL, 10),   # universal adapter at offset 10 twice
        read(UNIVERSAL.lower(), 20),                # lowercase: FastQC upper-cases reads
        read(NEXTERA, 0),
        read(UNIVERSAL[:6] + "N" + UNIVERSAL[7:], 5),  # an N is not the adapter
        read(UNIVERSAL, 30),                         # does not fit in 40 bases
        read(), read(), read(), read(),
    ]
    # An adapter in a read's name or in its qualities is not in the read.
    records = [(f"r{i} {UNIVERSAL}", s, "I" * len(s)) for i, s in enumerate(sequences)]
    records[-1] = (records[-1][0], records[-1][1], "AGATCGGAAGAG" + "I" * 28)
    report = _run(tmp_path, records)
    table = report.adapter_content
    # Positions 1 to 40 - 12 + 1 = 29, one per group (reads of 75 bases or less).
    assert table.positions == [str(p) for p in range(1, 30)]
    universal, _rna3, _rna5, nextera, _solid = table.percentages
    assert universal == pytest.approx([0.0] * 10 + [20.0] * 10 + [30.0] * 9)
    assert nextera == pytest.approx([10.0] * 29)
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.ADAPTER_CONTENT] == v.Verdict.FAIL


def test_adapter_positions_are_grouped_like_fastqcs(tmp_path: pathlib.Path) -> None:
    rng = random.Random(4)
    sequences = [random_sequence(rng, 150) for _ in range(20)]
    report = _run(tmp_path, [(f"r{i}", s, "I" * len(s)) for i, s in enumerate(sequences)])
    # 150 - 11 = 139 positions: 1-9, then FastQC's groups of 2.
    assert report.adapter_content.positions[:11] == [*map(str, range(1, 10)), "10-11",
                                                      "12-13"]


def test_reads_no_longer_than_the_adapters_warn(tmp_path: pathlib.Path) -> None:
    report = _run(tmp_path, [(f"r{i}", "ACGTACGTAC", "IIIIIIIIII") for i in range(5)])
    assert report.adapter_content.positions == []
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.ADAPTER_CONTENT] == v.Verdict.WARN


def _tile_records(names: list[str], qualities: list[str]) -> list[tuple[str, str, str]]:
    return [(name, "ACGTA", quality) for name, quality in zip(names, qualities, strict=True)]


def test_per_tile_quality_of_every_tenth_read(tmp_path: pathlib.Path) -> None:
    # Reads 10 and 20 are looked at: tile 1 with Q40, tile 2 with Q20. Average 30.
    names = [f"M1:1:FC:1:{1 if i <= 10 else 2}:{i}:{i} 1:N:0:1" for i in range(1, 21)]
    qualities = ["#####"] * 20
    qualities[9], qualities[19] = "IIIII", "55555"
    report = _run(tmp_path, _tile_records(names, qualities))
    table = report.per_tile_quality
    assert table.tiles == [1, 2]
    assert table.positions == ["1", "2", "3", "4", "5"]
    assert table.deviations == [[10.0] * 5, [-10.0] * 5]
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.PER_TILE_QUALITY] == v.Verdict.WARN  # 10 is not above 10


def test_older_illumina_names_carry_the_tile_in_the_third_field(
        tmp_path: pathlib.Path) -> None:
    names = [f"HWUSI:4:{7 if i <= 20 else 8}:{i}:{i}#0/1" for i in range(1, 41)]
    qualities = ["IIIII"] * 40
    qualities[29] = qualities[39] = "+++++"  # reads 30 and 40: tile 8 at Q10
    report = _run(tmp_path, _tile_records(names, qualities))
    assert report.per_tile_quality.tiles == [7, 8]
    assert report.per_tile_quality.deviations[1] == pytest.approx([-15.0] * 5)
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.PER_TILE_QUALITY] == v.Verdict.FAIL


@pytest.mark.parametrize("names", [
    [f"read{i}" for i in range(1, 21)],                              # no fields
    [f"M1:1:FC:1:{'x' if i == 20 else 1}:{i}:{i}" for i in range(1, 21)],  # not a number
    [f"M1:1:FC:1:{i}:{i}:{i}" for i in range(1, 20_000)],              # > 1,000 tiles
])
def test_names_without_tiles_leave_the_module_out(tmp_path: pathlib.Path,
                                                  names: list[str]) -> None:
    report = _run(tmp_path, _tile_records(names, ["IIIII"] * len(names)))
    assert report.per_tile_quality is None
    judged = {item.module: item.verdict for item in v.verdicts(report)}
    assert judged[v.PER_TILE_QUALITY] is None
    assert "perTileQuality" not in report.to_dict()


def test_every_path_through_the_engine_gives_the_same_tables(tmp_path: pathlib.Path) -> None:
    """Over 100,000 distinct sequences (the duplication correction applies), adapters and
    tiles, counted serially, by worker processes in small chunks, and by the tolerant
    reader (CRLF line ends)."""
    rng = random.Random(5)
    pool = [random_sequence(rng, 60) for _ in range(300)]
    records = []
    for index in range(130_000):
        sequence = pool[index % 300] if index % 4 == 0 else random_sequence(rng, 60)
        if index % 37 == 0:
            sequence = (sequence[: index % 40] + UNIVERSAL + sequence)[:60]
        quality = "5" * 60 if index // 1000 % 7 == 3 else "I" * 59 + "#"
        records.append((f"M1:1:FC:2:{1101 + index // 1000 % 7}:{index}:1 1:N:0:1", sequence,
                        quality))
    plain = write_fastq(tmp_path / "plain.fastq", records)
    crlf = write_fastq(tmp_path / "crlf.fastq", records, newline="\r\n")
    serial = SERIAL.run(plain).to_dict()
    parallel = FastQCCompatibleEngine(processes=2, parallel_threshold=0,
                                      chunk_size=256 * 1024).run(plain).to_dict()
    tolerant = SERIAL.run(crlf).to_dict()
    for key in ("duplicationLevels", "adapterContent", "perTileQuality"):
        assert parallel[key] == serial[key], key
        assert tolerant[key] == serial[key], key
    assert serial["duplicationLevels"]["totalDeduplicatedPercentage"] < 100
    assert len(serial["perTileQuality"]["tiles"]) == 7


def test_tracked_sequences_keep_counting_once_the_dictionary_is_full(
        tmp_path: pathlib.Path) -> None:
    """After the first 100,000 distinct keys, only tracked keys count: a tracked key cut
    from long reads (50 bases, whatever follows), one of a 75-base read (kept whole) and
    lower-case copies (upper-cased) keep counting; a key first seen later never counts.
    Reads of 50, 75, 76 and 151 bases straddle the key rules; every path agrees."""
    rng = random.Random(11)
    long_key, short_read, late = (random_sequence(rng, n) for n in (50, 75, 151))
    records: list[tuple[str, str, str]] = []

    def add(sequence: str) -> None:
        records.append((f"r{len(records)}", sequence, "I" * len(sequence)))

    add(long_key + random_sequence(rng, 101))
    add(short_read)
    lengths = (50, 75, 76, 151)
    for index in range(100_500):
        add(random_sequence(rng, lengths[index % 4]))
    for index in range(300):
        tail = random_sequence(rng, 101)
        add((long_key + tail).lower() if index % 3 == 0 else long_key + tail)
        if index % 3:
            add(short_read.lower() if index % 2 else short_read)
        add(late)
    path = write_fastq(tmp_path / "reads.fastq", records)
    reports = [
        SERIAL.run(path),
        FastQCCompatibleEngine(processes=2, parallel_threshold=0,
                               chunk_size=512 * 1024).run(path),
        SERIAL.run(write_fastq(tmp_path / "crlf.fastq", records, newline="\r\n")),
    ]
    for report in reports:
        counts = {o.sequence: o.count for o in report.overrepresented_sequences}
        assert counts == {long_key: 301, short_read: 201}
        assert report.duplication == reports[0].duplication


@pytest.mark.parametrize(("deviation", "verdict"), [
    (5.0, "pass"), (-5.0, "pass"), (5.01, "warn"), (-5.01, "warn"), (-10.0, "warn"),
    (10.01, "fail"), (-10.01, "fail")])
def test_per_tile_limits(deviation: float, verdict: str) -> None:
    assert v.per_tile_quality([[0.0, deviation], [0.0, 0.0]]) == verdict


@pytest.mark.parametrize(("percentage", "verdict"), [
    (5.0, "pass"), (5.01, "warn"), (10.0, "warn"), (10.01, "fail")])
def test_adapter_limits(percentage: float, verdict: str) -> None:
    assert v.adapter_content([[0.0, percentage], [0.0, 0.0]]) == verdict


@pytest.mark.parametrize(("deduplicated", "verdict"), [
    (70.0, "pass"), (69.99, "warn"), (50.0, "warn"), (49.99, "fail")])
def test_duplication_limits(deduplicated: float, verdict: str) -> None:
    assert v.duplication(deduplicated) == verdict


def test_long_reads_are_counted_by_tile_a_few_rows_at_a_time(tmp_path: pathlib.Path,
                                                            monkeypatch) -> None:
    import seqcore.qc.fastqc_modules as modules

    rng = random.Random(6)
    records = []
    for index in range(400):
        length = rng.choice((300, 450, 600))
        records.append((f"M1:1:FC:1:{11 + index // 10 % 3}:{index}:1",
                        random_sequence(rng, length),
                        "".join(chr(33 + rng.randint(2, 40)) for _ in range(length))))
    path = write_fastq(tmp_path / "long.fastq", records)
    whole = SERIAL.run(path).per_tile_quality
    monkeypatch.setattr(modules, "_MATRIX_CELLS", 1000)
    assert SERIAL.run(path).per_tile_quality == whole
