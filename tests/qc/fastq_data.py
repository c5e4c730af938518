"""Seeded FASTQ generators and a FastQC runner/parser for the QC tests.

Every file is generated (no downloads) and small, so the whole module runs in seconds;
FastQC runs once for a batch of files, because its JVM start-up dominates its run time.
"""

from __future__ import annotations

import gzip
import pathlib
import random
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from seqcore.qc import QCReport

# The start of the Illumina universal (TruSeq) adapter, as seen in adapter read-through.
ADAPTER = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCTCGTATGCCGTCTTCTGCTTG"

Record = tuple[str, str, str]  # header (without '@'), sequence, quality


def fastqc_available() -> bool:
    return shutil.which("fastqc") is not None


def random_sequence(rng: random.Random, length: int, n_rate: float = 0.0) -> str:
    bases = rng.choices("ACGT", k=length)
    if n_rate:
        for i in range(length):
            if rng.random() < n_rate:
                bases[i] = "N"
    return "".join(bases)


def random_quality(
    rng: random.Random, length: int, offset: int = 33, low: int = 2, high: int = 40
) -> str:
    """Qualities that drift down along the read, like real Illumina runs."""
    scores = []
    for position in range(length):
        centre = high - 4 - 12 * position / 150
        score = round(rng.gauss(centre, 6))
        scores.append(chr(offset + min(high, max(low, score))))
    return "".join(scores)


def mixed_records(
    seed: int,
    count: int,
    *,
    lengths: Sequence[int] = (0, 20, 35, 50, 75, 76, 100, 150),
    n_rate: float = 0.01,
    offset: int = 33,
    low: int = 2,
    adapter_fraction: float = 0.005,
    duplicate: str | None = None,
    duplicate_fraction: float = 0.0,
) -> list[Record]:
    """Reads of mixed lengths (around FastQC's 75 bp cut), N bases, adapter reads."""
    rng = random.Random(seed)
    records = []
    for index in range(count):
        length = rng.choice(lengths)
        roll = rng.random()
        if roll < adapter_fraction:
            length = max(length, 100)
            sequence = (ADAPTER + random_sequence(rng, length))[:length]
        elif duplicate is not None and roll < adapter_fraction + duplicate_fraction:
            sequence = duplicate
        else:
            sequence = random_sequence(rng, length, n_rate)
        quality = random_quality(rng, len(sequence), offset, low=low)
        records.append((f"read{index} seed={seed}", sequence, quality))
    return records


def fastq_text(records: Iterable[Record], newline: str = "\n") -> str:
    return "".join(f"@{h}{newline}{s}{newline}+{newline}{q}{newline}" for h, s, q in records)


def write_fastq(path: pathlib.Path, records: Iterable[Record], newline: str = "\n") -> pathlib.Path:
    data = fastq_text(records, newline).encode("latin-1")
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
    else:
        path.write_bytes(data)
    return path


# -- FastQC ---------------------------------------------------------------------------


def run_fastqc(files: Sequence[pathlib.Path], out_dir: pathlib.Path, nogroup: bool) -> None:
    """Run FastQC once over ``files`` (one JVM), extracting ``fastqc_data.txt``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    command = ["fastqc", "--quiet", "--extract", "--threads", "2", "--outdir", str(out_dir)]
    if nogroup:
        command.append("--nogroup")
    subprocess.run([*command, *map(str, files)], check=False, capture_output=True, timeout=600)


def fastqc_data_path(fastq: pathlib.Path, out_dir: pathlib.Path) -> pathlib.Path:
    name = fastq.name
    for suffix in (".gz", ".bz2", ".fastq", ".fq"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return out_dir / f"{name}_fastqc" / "fastqc_data.txt"


@dataclass
class FastQCResult:
    modules: dict[str, list[list[str]]]

    @classmethod
    def load(cls, path: pathlib.Path) -> FastQCResult:
        modules: dict[str, list[list[str]]] = {}
        current: list[list[str]] | None = None
        for line in path.read_text().splitlines():
            if line.startswith(">>END_MODULE"):
                current = None
            elif line.startswith(">>"):
                current = modules.setdefault(line[2:].split("\t")[0], [])
            elif not line.startswith("#") and current is not None:
                current.append(line.split("\t"))
        return cls(modules)

    def basic(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.modules["Basic Statistics"]}

    def total_bases(self) -> int:
        total = 0
        for label, count in self.modules["Sequence Length Distribution"]:
            assert "-" not in label, "run FastQC with --nogroup to get exact lengths"
            total += int(label) * int(float(count))
        return total

    def overrepresented(self) -> list[tuple[str, int, float, str]]:
        return [
            (seq, int(count), float(pct), source)
            for seq, count, pct, source in self.modules.get("Overrepresented sequences", [])
        ]

    def per_base_quality(self) -> list[tuple[str, list[float | None]]]:
        rows = []
        for label, *values in self.modules.get("Per base sequence quality", []):
            rows.append((label, [None if v == "NaN" else float(v) for v in values]))
        return rows

    def per_sequence_quality(self) -> dict[int, int]:
        rows = self.modules.get("Per sequence quality scores", [])
        return {int(q): int(float(c)) for q, c in rows if float(c) > 0}


def assert_matches_fastqc(report: QCReport, fastqc: FastQCResult, nogroup: bool = True) -> None:
    """Every number of the report equals FastQC's (at FastQC's printed precision)."""
    basic = fastqc.basic()
    assert report.file_type == basic["File type"]
    assert report.encoding == basic["Encoding"]
    assert report.total_sequences == int(basic["Total Sequences"])
    assert report.filtered_sequences == int(basic["Sequences flagged as poor quality"])
    length = basic["Sequence length"]
    low, _, high = length.partition("-")
    assert (report.min_length, report.max_length) == (int(low), int(high or low))
    assert report.gc_content == int(basic["%GC"])
    if nogroup:
        assert report.total_bases == fastqc.total_bases()

    ours = [
        (o.sequence, o.count, o.percentage, o.possible_source)
        for o in report.overrepresented_sequences
    ]
    theirs = fastqc.overrepresented()
    # Equal counts are listed in Java HashMap order by FastQC, so compare as sets; the
    # order by decreasing count is checked separately.
    assert sorted(ours) == sorted(theirs)
    assert [o[1] for o in ours] == sorted((o[1] for o in ours), reverse=True)

    grouped = report.grouped_per_base_quality(nogroup=nogroup)
    expected = fastqc.per_base_quality()
    assert [g.label for g in grouped] == [label for label, _ in expected]
    for group, (label, values) in zip(grouped, expected, strict=True):
        ours_values = [
            group.mean,
            group.median,
            group.lower_quartile,
            group.upper_quartile,
            group.percentile_10,
            group.percentile_90,
        ]
        assert ours_values == values, f"per-base quality of {label}"
    assert report.per_sequence_quality == fastqc.per_sequence_quality()
