"""Contigs: reading them, the repeat and short-contig filter, and the statistics report.

The filter is IRIDA's ``filter_spades_repeats`` (AssemblyAnnotation 0.3) at its defaults:
the mean coverage is the plain mean of the coverages of the contigs at least
``length_for_average`` bp long; a contig passes when it is at least ``min_length`` long and
its coverage is at least ``coverage_ratio`` x mean; a passing contig whose coverage is at
least ``repeat_ratio`` x mean is a repeat, kept in contigs-with-repeats with
``(N copies)`` appended to the header (no space, N = int(coverage / mean), truncated as
the script does) and left out of contigs-without-repeats. Options depart from it on
request: a length-weighted or median coverage, copy numbers rounded to the nearest integer.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import dnaio

SPADES_COVERAGE = re.compile(r"_cov_([0-9]+(?:\.[0-9]+)?)")
MEGAHIT_COVERAGE = re.compile(r"\bmulti=([0-9]+(?:\.[0-9]+)?)")


@dataclass
class Contig:
    header: str  # the whole header line, without ">"
    sequence: str
    # The read depth measured by mapping the reads back (readdepth.py), when asked for.
    depth: float | None = None

    @property
    def coverage(self) -> float | None:
        """The measured read depth when there is one, else the assembler's coverage:
        SPAdes' ``_cov_`` or MEGAHIT's ``multi=``."""
        if self.depth is not None:
            return self.depth
        for pattern in (SPADES_COVERAGE, MEGAHIT_COVERAGE):
            found = pattern.search(self.header)
            if found:
                return float(found.group(1))
        return None

    def __len__(self) -> int:
        return len(self.sequence)


def read_fasta(path: Path) -> Iterator[Contig]:
    """The contigs of a FASTA file (dnaio; plain or compressed)."""
    with dnaio.open(path, fileformat="fasta") as records:
        for record in records:
            yield Contig(record.name.strip(), record.sequence)


def write_fasta(path: Path, contigs: Iterable[Contig], width: int = 60) -> int:
    """Write contigs as FASTA, ``width`` bases a line; returns how many."""
    count = 0
    with dnaio.FastaWriter(path, line_length=width) as out:
        for contig in contigs:
            out.write(dnaio.SequenceRecord(contig.header, contig.sequence))
            count += 1
    return count


PLAIN, WEIGHTED, MEDIAN = "plain", "weighted", "median"
HEADER, READS = "header", "reads"
DOWN, NEAREST = "down", "nearest"


@dataclass
class FilterResult:
    with_repeats: list[Contig] = field(default_factory=list)
    without_repeats: list[Contig] = field(default_factory=list)
    repeats: list[Contig] = field(default_factory=list)
    discarded: list[Contig] = field(default_factory=list)
    average: float = 0.0
    coverage_cutoff: float = 0.0
    repeat_cutoff: float = 0.0
    # Empty when the mean is IRIDA's; otherwise what it was taken over, for the report.
    average_note: str = ""


def mean_coverage(contigs: list[Contig], length_for_average: int,
                  mean: str = PLAIN) -> tuple[float, str]:
    """The reference coverage of the filter and a note when it is not IRIDA's.

    IRIDA's rule (``mean="plain"``): the plain mean of the coverages of the contigs at least
    ``length_for_average`` long, repeats included. ``mean="weighted"`` weights each by its
    length (long contigs count more, so short noisy ones move it less). ``mean="median"``
    takes their median: the single-copy coverage as long as most long contigs are single
    copy, which a collapsed repeat of that length does not pull up as it does the mean
    (the copy numbers then come out right; see docs/analyses/assembly.md).

    IRIDA's script stops with a division by zero when no contig is that long; a poor
    assembly is better judged against all its contigs than failed, so the mean then falls
    back to every contig with a coverage, and the note says so."""
    covered = [c for c in contigs if c.coverage is not None]
    long_ = [c for c in covered if len(c) >= length_for_average]
    pool, note = (long_, "") if long_ else (covered, "all contigs: none is "
                                                      f"{length_for_average} bp long")
    if not pool:
        return 0.0, "no contig carries a coverage"
    if any(c.depth is not None for c in pool):
        note = "; ".join(filter(None, ["read depth", note]))
    if mean == WEIGHTED:
        average = sum(len(c) * (c.coverage or 0.0) for c in pool) / sum(len(c) for c in pool)
        note = "; ".join(filter(None, ["length-weighted", note]))
    elif mean == MEDIAN:
        average = statistics.median(c.coverage or 0.0 for c in pool)
        note = "; ".join(filter(None, ["median", note]))
    else:
        total = 0.0
        for contig in pool:  # in file order, as the script adds them
            total += contig.coverage or 0.0
        average = total / len(pool)
    return average, note


def copy_number(coverage: float, average: float, rounding: str = DOWN) -> int:
    """Copies of a repeat: coverage over the mean, truncated as IRIDA's script does
    (``int``), or rounded to the nearest integer (halves up)."""
    ratio = coverage / average
    return int(ratio + 0.5) if rounding == NEAREST else int(ratio)


def filter_contigs(contigs: list[Contig], *, min_length: int = 1000,
                   coverage_ratio: float = 0.33, repeat_ratio: float = 1.75,
                   length_for_average: int = 5000, mean: str = PLAIN,
                   copy_numbers: str = DOWN) -> FilterResult:
    average, note = mean_coverage(contigs, length_for_average, mean)
    result = FilterResult(average=average, coverage_cutoff=average * coverage_ratio,
                          repeat_cutoff=average * repeat_ratio, average_note=note)
    for contig in contigs:
        coverage = contig.coverage
        if len(contig) < min_length or (coverage is not None and
                                        coverage < result.coverage_cutoff):
            result.discarded.append(contig)
        elif coverage is not None and average > 0 and coverage >= result.repeat_cutoff:
            copies = copy_number(coverage, average, copy_numbers)
            repeat = Contig(f"{contig.header}({copies} copies)", contig.sequence)
            result.repeats.append(repeat)
            result.with_repeats.append(repeat)
        else:
            result.with_repeats.append(contig)
            result.without_repeats.append(contig)
    return result


def perl_number(value: float) -> str:
    """A number as Perl prints it (``%.15g``), so the report reads like IRIDA's."""
    return format(value, ".15g")


def filter_report(result: FilterResult, *, min_length: int, coverage_ratio: float,
                  repeat_ratio: float, length_for_average: int, **_options: str) -> str:
    """``filter-spades.txt``: IRIDA's summary file byte for byte (its ``Paramaters`` and
    ``calcularing`` spellings included, since clients may look for them); a mean that is
    not IRIDA's is named in brackets after the figure."""
    note = f" ({result.average_note})" if result.average_note else ""
    lines = [
        "Filter SPAdes repeats Results Summary",
        "======================================",
        "",
        "Paramaters used:",
        f"Length cutoff for calcularing average cutoff: {length_for_average}",
        f"Coverage cutoff ratio: {perl_number(coverage_ratio)}",
        f"Repeat cutoff ratio: {perl_number(repeat_ratio)}",
        f"Length cutoff: {min_length}",
        "",
        "Calculations:",
        f"Average coverage: {perl_number(result.average)}{note}",
        f"Coverage cutoff: {perl_number(result.coverage_cutoff)}",
        f"Repeat cutoff: {perl_number(result.repeat_cutoff)}",
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
    return "\n".join(lines) + "\n"


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
