"""The verdicts equal FastQC's own, module by module, on generated files that pass, warn
and fail each module.

FastQC runs once (default position groups, as labs run it) over every file. The modules the
stored record holds are judged from the engine's report (:func:`verdicts`); the others from
the table FastQC prints, through the same functions the engine's numbers will feed.
"""

from __future__ import annotations

import pathlib
import random
from collections.abc import Callable

import pytest

from seqcore.qc import FastQCCompatibleEngine, QCReport
from seqcore.qc import verdicts as v

from .fastq_data import (
    ADAPTER,
    Record,
    fastqc_available,
    fastqc_data_path,
    random_quality,
    random_sequence,
    run_fastqc,
    write_fastq,
)

pytestmark = [
    pytest.mark.skipif(not fastqc_available(),
                       reason="the fastqc binary is not installed (apt-get install fastqc)"),
    pytest.mark.database_independent,
    pytest.mark.xdist_group("fastqc_parity"),
]

READS = 2000
LENGTH = 50


def _reads(seed: int, make: Callable[[random.Random, int], str], high: int = 40,
           count: int = READS) -> list[Record]:
    rng = random.Random(seed)
    records = []
    for index in range(count):
        sequence = make(rng, index)
        records.append((f"r{index}", sequence, random_quality(rng, len(sequence), high=high)))
    return records


def _tiled(seed: int, bad_tile_drop: int, old_names: bool = False,
           length: int = LENGTH) -> list[Record]:
    """Illumina-named reads on 4 tiles; tile 1102's qualities are ``bad_tile_drop`` lower."""
    rng = random.Random(seed)
    records = []
    for index in range(READS):
        tile = 1101 + index // 10 % 4  # FastQC looks at every 10th read
        sequence = random_sequence(rng, length)
        drop = bad_tile_drop if tile == 1102 else 0
        # Every tile has low qualities too, so every tile's lowest character says Sanger.
        quality = "".join(chr(33 + max(2, 38 - drop - rng.randint(0, 2)))
                          for _ in sequence[1:]) + chr(33 + rng.randint(2, 8))
        name = (f"HWI-1:{tile // 1000}:{tile}:{index}:{index}#0/1" if old_names
                else f"M0:7:FC1:1:{tile}:{index}:{index} 1:N:0:1")
        records.append((name, sequence, quality))
    return records


def _plain(rng: random.Random, _index: int) -> str:
    return random_sequence(rng, LENGTH)


def _biased(at_skew: float) -> Callable[[random.Random, int], str]:
    weights = [0.25 + at_skew, 0.25, 0.25, 0.25 - at_skew]  # A, C, G, T
    return lambda rng, _i: "".join(rng.choices("ACGT", weights=weights, k=LENGTH))


def _with_n(rate: float) -> Callable[[random.Random, int], str]:
    return lambda rng, _i: random_sequence(rng, LENGTH, rate)


def _gc_mixture(share: float) -> Callable[[random.Random, int], str]:
    def make(rng: random.Random, index: int) -> str:
        if index % 100 < share * 100:
            return "".join(rng.choices("ACGT", weights=[0.1, 0.4, 0.4, 0.1], k=LENGTH))
        return random_sequence(rng, LENGTH)
    return make


def _duplicated(distinct: int, copies: int) -> Callable[[random.Random, int], str]:
    pool = [random_sequence(random.Random(7000 + i), LENGTH) for i in range(distinct)]
    return lambda rng, index: pool[index % distinct] if index < copies * distinct \
        else random_sequence(rng, LENGTH)


def _one_repeated(share: float) -> Callable[[random.Random, int], str]:
    repeated = random_sequence(random.Random(99), LENGTH)
    return lambda rng, index: repeated if index % 1000 < share * 1000 \
        else random_sequence(rng, LENGTH)


def _adapter(share: float) -> Callable[[random.Random, int], str]:
    return lambda rng, index: (ADAPTER + random_sequence(rng, LENGTH))[:LENGTH] \
        if index % 100 < share * 100 else random_sequence(rng, LENGTH)


def _lengths(zero_every: int | None) -> Callable[[random.Random, int], str]:
    def make(rng: random.Random, index: int) -> str:
        if zero_every and index % zero_every == 0:
            return ""
        return random_sequence(rng, rng.randint(30, LENGTH))
    return make


FILES: dict[str, list[Record]] = {
    "clean": _reads(1, _plain),
    "quality_warn": _reads(2, _plain, high=28),
    "quality_fail": _reads(3, _plain, high=20),
    "lengths_warn": _reads(4, _lengths(None)),
    "lengths_fail": _reads(5, _lengths(40)),
    "overrepresented_warn": _reads(6, _one_repeated(0.005)),
    "overrepresented_fail": _reads(7, _one_repeated(0.05)),
    "content_warn": _reads(8, _biased(0.07)),
    "content_fail": _reads(9, _biased(0.14)),
    "n_warn": _reads(10, _with_n(0.1)),
    "n_fail": _reads(11, _with_n(0.3)),
    "gc_warn": _reads(12, _gc_mixture(0.12)),
    "gc_fail": _reads(13, _gc_mixture(0.4)),
    "duplication_warn": _reads(14, _duplicated(450, 3)),
    "duplication_fail": _reads(15, _duplicated(300, 5)),
    "adapter_warn": _reads(16, _adapter(0.07)),
    "adapter_fail": _reads(17, _adapter(0.2)),
    # 150 bp: FastQC groups positions (10-14, 15-19, ...), for quality and content alike;
    # longer reads: its GC module reads a multiple of 100 (of 1,000 above 1,000) bases.
    "long_reads": _reads(18, lambda rng, _i: random_sequence(rng, 150, 0.01)),
    "longer_reads": _reads(19, lambda rng, i: random_sequence(rng, (250, 420, 1500)[i % 3]),
                           count=600),
    "tile_pass": _tiled(20, 3),
    "tile_warn": _tiled(21, 8),
    "tile_fail": _tiled(22, 16),
    "tile_old_names": _tiled(23, 16, old_names=True),
    # 150 bp: tile and adapter positions in FastQC's groups.
    "tile_long_reads": _tiled(24, 9, length=150),
    "adapter_long_reads": _reads(25, lambda rng, index: (
        random_sequence(rng, index % 140) + ADAPTER + random_sequence(rng, 150))[:150]
        if index % 9 == 0 else random_sequence(rng, 150)),
}


class FastQCOutput:
    """FastQC's verdict and table rows of every module of one ``fastqc_data.txt``."""

    def __init__(self, path: pathlib.Path) -> None:
        self.status: dict[str, str] = {}
        self.rows: dict[str, list[list[str]]] = {}
        self.deduplicated: float | None = None
        current: list[list[str]] | None = None
        for line in path.read_text().splitlines():
            if line.startswith(">>END_MODULE"):
                current = None
            elif line.startswith(">>"):
                name, status = line[2:].split("\t")
                self.status[name] = status
                current = self.rows.setdefault(name, [])
            elif line.startswith("#Total Deduplicated Percentage"):
                self.deduplicated = float(line.split("\t")[1])
            elif not line.startswith("#") and current is not None:
                current.append(line.split("\t"))

    def numbers(self, module: str) -> list[list[float]]:
        return [[float(value) for value in row[1:]] for row in self.rows[module]]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, FastQCOutput,
                                                                        QCReport]]:
    directory = tmp_path_factory.mktemp("verdicts")
    paths = {name: write_fastq(directory / f"{name}.fastq", records)
             for name, records in FILES.items()}
    out = directory / "fastqc"
    run_fastqc(list(paths.values()), out, nogroup=False)
    engine = FastQCCompatibleEngine(processes=1)
    results = {}
    for name, path in paths.items():
        report = engine.run(path)
        stored = v.report_of(report.to_dict())  # judged as stored and read back
        ours = {item.module: item.verdict for item in v.verdicts(stored)}
        results[name] = (ours, FastQCOutput(fastqc_data_path(path, out)), report)
    return results


def _from_tables(fastqc: FastQCOutput) -> dict[str, v.Verdict]:
    """The verdicts of FastQC's tables, judged by the same functions."""
    gc_counts = [row[0] for row in fastqc.numbers(v.PER_SEQUENCE_GC)]
    assert fastqc.deduplicated is not None
    return {
        v.PER_BASE_CONTENT: v.per_base_content(
            (g, a, t, c) for g, a, t, c in fastqc.numbers(v.PER_BASE_CONTENT)),
        v.PER_SEQUENCE_GC: v.per_sequence_gc(gc_counts),
        v.PER_BASE_N: v.per_base_n(row[0] for row in fastqc.numbers(v.PER_BASE_N)),
        v.DUPLICATION_LEVELS: v.duplication(fastqc.deduplicated),
        v.ADAPTER_CONTENT: v.adapter_content(fastqc.numbers(v.ADAPTER_CONTENT)),
        **({v.PER_TILE_QUALITY: v.per_tile_quality(
            [[float(row[2])] for row in fastqc.rows[v.PER_TILE_QUALITY]])}
           if v.PER_TILE_QUALITY in fastqc.rows else {}),
    }


@pytest.mark.parametrize("name", sorted(FILES))
def test_verdicts_of_the_stored_record_equal_fastqcs(judged: dict, name: str) -> None:
    ours, fastqc, _report = judged[name]
    for module in v.MODULES:
        # FastQC leaves per-tile quality out for reads without tile numbers; so does the
        # record (not measured).
        assert ours[module] == fastqc.status.get(module), module


@pytest.mark.parametrize("name", sorted(FILES))
def test_grouped_base_and_n_content_equal_fastqcs_tables(judged: dict, name: str) -> None:
    _ours, fastqc, report = judged[name]
    content = v.grouped_content(report)
    expected = fastqc.rows[v.PER_BASE_CONTENT]
    assert [row.label for row in content] == [row[0] for row in expected]
    for row, (_label, g, a, t, c) in zip(content, expected, strict=True):
        assert (row.g, row.a, row.t, row.c) == pytest.approx(
            (float(g), float(a), float(t), float(c)), abs=1e-9)
    n_rows = fastqc.rows[v.PER_BASE_N]
    assert [row.n for row in content] == pytest.approx([float(n) for _l, n in n_rows],
                                                       abs=1e-9)


@pytest.mark.parametrize("name", sorted(FILES))
def test_gc_distribution_equals_fastqcs_table(judged: dict, name: str) -> None:
    _ours, fastqc, report = judged[name]
    expected = {int(gc): float(count) for gc, count in fastqc.rows[v.PER_SEQUENCE_GC]}
    assert report.gc_distribution == pytest.approx([expected[gc] for gc in range(101)],
                                                   rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("name", sorted(FILES))
def test_duplication_table_equals_fastqcs(judged: dict, name: str) -> None:
    _ours, fastqc, report = judged[name]
    levels = report.duplication
    assert levels.deduplicated_percentage == pytest.approx(fastqc.deduplicated, rel=1e-12)
    expected = fastqc.rows[v.DUPLICATION_LEVELS]
    assert [label.rstrip("+") for label, _d, _t in expected] == levels.levels
    assert levels.deduplicated == pytest.approx([float(d) for _l, d, _t in expected],
                                                rel=1e-9, abs=1e-9)
    assert levels.total == pytest.approx([float(t) for _l, _d, t in expected],
                                         rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("name", sorted(FILES))
def test_adapter_table_equals_fastqcs(judged: dict, name: str) -> None:
    _ours, fastqc, report = judged[name]
    table = report.adapter_content
    expected = fastqc.rows[v.ADAPTER_CONTENT]
    assert table.positions == [row[0] for row in expected]
    assert [list(column) for column in zip(*table.percentages, strict=True)] == [
        pytest.approx([float(value) for value in row[1:]], abs=1e-12) for row in expected]


@pytest.mark.parametrize("name", sorted(name for name in FILES if name.startswith("tile")))
def test_per_tile_table_equals_fastqcs(judged: dict, name: str) -> None:
    _ours, fastqc, report = judged[name]
    table = report.per_tile_quality
    rows = [(str(tile), position, value) for tile, deviations
            in zip(table.tiles, table.deviations, strict=True)
            for position, value in zip(table.positions, deviations, strict=True)]
    expected = fastqc.rows[v.PER_TILE_QUALITY]
    assert [row[:2] for row in rows] == [(tile, base) for tile, base, _mean in expected]
    assert [row[2] for row in rows] == pytest.approx(
        [float(mean) for _tile, _base, mean in expected], abs=1e-9)


def test_reads_without_tiles_leave_per_tile_quality_out(judged: dict) -> None:
    assert judged["clean"][2].per_tile_quality is None
    assert v.PER_TILE_QUALITY not in judged["clean"][1].status


def test_records_made_before_base_counts_leave_content_unmeasured(judged: dict) -> None:
    stored = judged["tile_fail"][2].to_dict()
    del stored["perBaseCounts"], stored["lengthCounts"], stored["gcDistribution"]
    del stored["duplicationLevels"], stored["adapterContent"], stored["perTileQuality"]
    judged = {item.module: item.verdict for item in v.verdicts(v.report_of(stored))}
    assert judged[v.PER_BASE_CONTENT] is None and judged[v.PER_BASE_N] is None
    assert judged[v.PER_SEQUENCE_GC] is None
    assert judged[v.DUPLICATION_LEVELS] is None and judged[v.ADAPTER_CONTENT] is None
    assert judged[v.PER_TILE_QUALITY] is None
    assert judged[v.PER_BASE_QUALITY] is not None


@pytest.mark.parametrize("name", sorted(FILES))
def test_verdicts_from_fastqcs_tables_equal_fastqcs(judged: dict, name: str) -> None:
    _ours, fastqc, _report = judged[name]
    for module, verdict in _from_tables(fastqc).items():
        assert verdict == fastqc.status[module], module


def test_every_module_is_seen_passing_warning_and_failing(judged: dict) -> None:
    seen: dict[str, set[str]] = {}
    for ours, fastqc, _report in judged.values():
        every = {**{m: x for m, x in ours.items() if x is not None}, **_from_tables(fastqc)}
        for module, verdict in every.items():
            seen.setdefault(module, set()).add(str(verdict))
    for module in v.MODULES:
        if module == v.BASIC:
            continue  # Basic statistics always pass.
        assert seen[module] == {"pass", "warn", "fail"}, module


def test_the_worst_verdict_ignores_unmeasured_modules() -> None:
    judged = [v.ModuleVerdict("a", v.Verdict.WARN), v.ModuleVerdict("b", None),
              v.ModuleVerdict("c", v.Verdict.PASS)]
    assert v.worst(judged) == v.Verdict.WARN
    assert v.worst([v.ModuleVerdict("a", None)]) is None


def test_stored_record_reads_back_to_the_same_verdicts(tmp_path: pathlib.Path) -> None:
    path = write_fastq(tmp_path / "q.fastq", FILES["quality_fail"])
    report = FastQCCompatibleEngine(processes=1).run(path)
    assert v.report_of(report.to_dict()) == report
    assert v.worst(v.verdicts(v.report_of(report.to_dict()))) == v.Verdict.FAIL
