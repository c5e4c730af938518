"""Contigs: reading them, the repeat and short-contig filter, and the statistics report.

The filter follows IRIDA's AssemblyAnnotation 0.3 (``filter_spades_repeats``): the mean
coverage is taken over the long contigs (at least ``length_for_average`` bp, weighted by
length); contigs shorter than ``min_length`` or below ``coverage_ratio`` x mean are
discarded; contigs at or above ``repeat_ratio`` x mean are repeats, kept in
contigs-with-repeats with `` (N copies)`` appended to the header (N = int(coverage / mean))
and left out of contigs-without-repeats.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SPADES_COVERAGE = re.compile(r"_cov_([0-9]+(?:\.[0-9]+)?)")
MEGAHIT_COVERAGE = re.compile(r"\bmulti=([0-9]+(?:\.[0-9]+)?)")


@dataclass
class Contig:
    header: str  # the whole header line, without ">"
    sequence: str

    @property
    def coverage(self) -> float | None:
        """The assembler's coverage: SPAdes' ``_cov_`` or MEGAHIT's ``multi=``."""
        for pattern in (SPADES_COVERAGE, MEGAHIT_COVERAGE):
            found = pattern.search(self.header)
            if found:
                return float(found.group(1))
        return None

    def __len__(self) -> int:
        return len(self.sequence)


def read_fasta(path: Path) -> Iterator[Contig]:
    header: str | None = None
    chunks: list[str] = []
    with path.open() as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if line.startswith(">"):
                if header is not None:
                    yield Contig(header, "".join(chunks))
                header, chunks = line[1:].strip(), []
            elif line:
                chunks.append(line.strip())
    if header is not None:
        yield Contig(header, "".join(chunks))


def write_fasta(path: Path, contigs: Iterable[Contig], width: int = 60) -> int:
    count = 0
    with path.open("w") as out:
        for contig in contigs:
            out.write(f">{contig.header}\n")
            seq = contig.sequence
            for start in range(0, len(seq), width):
                out.write(seq[start:start + width] + "\n")
            count += 1
    return count


@dataclass
class FilterResult:
    with_repeats: list[Contig] = field(default_factory=list)
    without_repeats: list[Contig] = field(default_factory=list)
    repeats: list[Contig] = field(default_factory=list)
    discarded: list[Contig] = field(default_factory=list)
    average: float = 0.0
    coverage_cutoff: float = 0.0
    repeat_cutoff: float = 0.0
    average_from: str = ""


def mean_coverage(contigs: list[Contig], length_for_average: int) -> tuple[float, str]:
    """Length-weighted mean coverage of the contigs at least ``length_for_average`` long.

    When no contig is that long (a poor assembly), all contigs with a coverage are used, so
    the filter still has a reference point; the report says which was used."""
    covered = [c for c in contigs if c.coverage is not None]
    for pool, how in ((
            [c for c in covered if len(c) >= length_for_average],
            f"contigs >= {length_for_average} bp"), (covered, "all contigs")):
        bases = sum(len(c) for c in pool)
        if bases:
            return sum(len(c) * (c.coverage or 0.0) for c in pool) / bases, how
    return 0.0, "no contig carries a coverage"


def filter_contigs(contigs: list[Contig], *, min_length: int = 1000,
                   coverage_ratio: float = 0.33, repeat_ratio: float = 1.75,
                   length_for_average: int = 5000) -> FilterResult:
    average, how = mean_coverage(contigs, length_for_average)
    result = FilterResult(average=average, coverage_cutoff=average * coverage_ratio,
                          repeat_cutoff=average * repeat_ratio, average_from=how)
    for contig in contigs:
        coverage = contig.coverage
        if len(contig) < min_length or (coverage is not None and
                                        coverage < result.coverage_cutoff):
            result.discarded.append(contig)
        elif coverage is not None and average > 0 and coverage >= result.repeat_cutoff:
            copies = int(coverage / average)
            repeat = Contig(f"{contig.header} ({copies} copies)", contig.sequence)
            result.repeats.append(repeat)
            result.with_repeats.append(repeat)
        else:
            result.with_repeats.append(contig)
            result.without_repeats.append(contig)
    return result


def filter_report(result: FilterResult, *, min_length: int, coverage_ratio: float,
                  repeat_ratio: float, length_for_average: int) -> str:
    """``filter-spades.txt``, laid out as IRIDA's (its ``Paramaters`` spelling included,
    since clients may look for it)."""
    lines = [
        "Filter SPAdes repeats Results Summary",
        "======================================",
        "",
        "Paramaters used:",
        f"Length cutoff for calcuating average: {length_for_average}",
        f"Coverage ratio cutoff: {coverage_ratio:g}",
        f"Repeat ratio cutoff: {repeat_ratio:g}",
        f"Length cutoff: {min_length}",
        "",
        "Calculations:",
        f"Average coverage: {result.average:.2f} (length-weighted, {result.average_from})",
        f"Coverage cutoff: {result.coverage_cutoff:.2f}",
        f"Repeat cutoff: {result.repeat_cutoff:.2f}",
        "",
        "File headers:",
    ]
    for title, contigs in (("Filtered sequences (with repeats):", result.with_repeats),
                           ("Filtered sequences (no repeats):", result.without_repeats),
                           ("Repeat sequences:", result.repeats),
                           ("Discarded sequences:", result.discarded)):
        lines.append(title)
        lines.extend(f">{c.header}" for c in contigs)
        lines.append("")
    return "\n".join(lines)


def n50(lengths: list[int]) -> tuple[int, int]:
    """(N50, number of contigs in the N50): the shortest of the longest contigs that
    together hold half the bases."""
    total, running = sum(lengths), 0
    for count, length in enumerate(sorted(lengths, reverse=True), start=1):
        running += length
        if running * 2 >= total:
            return length, count
    return 0, 0


def stats_report(contigs: list[Contig]) -> str:
    """``assembly-stats-with-repeats.txt``: the report of IRIDA's ``assemblystats``
    (fasta_summary), numbers comma-grouped."""
    lengths = [len(c) for c in contigs]
    lengths_or_zero = lengths or [0]
    gc = sum(c.sequence.upper().count("G") + c.sequence.upper().count("C") for c in contigs)
    acgt = sum(sum(c.sequence.upper().count(b) for b in "ACGT") for c in contigs)
    value_n50, in_n50 = n50(lengths)
    long_ = [n for n in lengths if n >= 1000]

    def row(label: str, value: str) -> str:
        return f"    {label + ':':<40}{value}"

    mean = statistics.fmean(lengths_or_zero)
    sd = statistics.pstdev(lengths_or_zero) if len(lengths_or_zero) > 1 else 0.0
    return "\n".join([
        "Statistics for contig lengths:",
        row("Min contig length", f"{min(lengths_or_zero):,}"),
        row("Max contig length", f"{max(lengths_or_zero):,}"),
        row("Mean contig length", f"{mean:,.2f}"),
        row("Standard deviation of contig length", f"{sd:,.2f}"),
        row("Median contig length", f"{statistics.median(lengths_or_zero):,.2f}"),
        row("N50 contig length", f"{value_n50:,}"),
        "",
        "Statistics for numbers of contigs:",
        row("Number of contigs", f"{len(lengths):,}"),
        row("Number of contigs >=1kb", f"{len(long_):,}"),
        row("Number of contigs in N50", f"{in_n50:,}"),
        "",
        "Statistics for bases in the contigs:",
        row("Number of bases in all contigs", f"{sum(lengths):,}"),
        row("Number of bases in contigs >=1kb", f"{sum(long_):,}"),
        row("GC Content of contigs", f"{100 * gc / acgt if acgt else 0.0:.2f} %"),
        "",
    ])
