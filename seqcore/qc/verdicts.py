"""Pass, warn or fail per FastQC module, with FastQC's (0.11.9) own default limits.

Labs read a QC report by its verdicts first, and they compare them with FastQC's, so each
function below applies the limit of FastQC's ``limits.txt`` exactly the way the FastQC
module does (strict or inclusive comparison, on grouped or raw positions). They are pure
functions of numbers: :func:`verdicts` reads a stored QC record (:class:`QCReport`), the
others take the module's table as FastQC prints it, so a module whose numbers the engine
does not keep yet can still be judged (and checked against FastQC) from those numbers.

A module whose numbers the stored record does not hold gets the verdict ``None`` ("not
measured"), never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .report import (
    AdapterContent,
    BaseQuality,
    DuplicationLevels,
    OverrepresentedSequence,
    PerTileQuality,
    QCReport,
    fastqc_base_groups,
)


class Verdict(StrEnum):
    """FastQC's three outcomes, in increasing gravity."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Limits:
    """One module's warn and error limits from FastQC's ``limits.txt``."""

    warn: float
    error: float


# FastQC 0.11.9's limits.txt defaults.
QUALITY_BASE_LOWER = Limits(warn=10, error=5)
QUALITY_BASE_MEDIAN = Limits(warn=25, error=20)
QUALITY_SEQUENCE = Limits(warn=27, error=20)
SEQUENCE = Limits(warn=10, error=20)
GC_SEQUENCE = Limits(warn=15, error=30)
N_CONTENT = Limits(warn=5, error=20)
DUPLICATION = Limits(warn=70, error=50)
OVERREPRESENTED = Limits(warn=0.1, error=1)
ADAPTER = Limits(warn=5, error=10)
TILE = Limits(warn=5, error=10)

# FastQC's module names, in its report's order.
BASIC = "Basic Statistics"
PER_BASE_QUALITY = "Per base sequence quality"
PER_TILE_QUALITY = "Per tile sequence quality"
PER_SEQUENCE_QUALITY = "Per sequence quality scores"
PER_BASE_CONTENT = "Per base sequence content"
PER_SEQUENCE_GC = "Per sequence GC content"
PER_BASE_N = "Per base N content"
LENGTH_DISTRIBUTION = "Sequence Length Distribution"
DUPLICATION_LEVELS = "Sequence Duplication Levels"
OVERREPRESENTED_SEQUENCES = "Overrepresented sequences"
ADAPTER_CONTENT = "Adapter Content"
MODULES = (BASIC, PER_BASE_QUALITY, PER_TILE_QUALITY, PER_SEQUENCE_QUALITY, PER_BASE_CONTENT,
           PER_SEQUENCE_GC, PER_BASE_N, LENGTH_DISTRIBUTION, DUPLICATION_LEVELS,
           OVERREPRESENTED_SEQUENCES, ADAPTER_CONTENT)


@dataclass(frozen=True)
class ModuleVerdict:
    """A module's verdict; ``None`` when the stored record lacks the module's numbers."""

    module: str
    verdict: Verdict | None


def _grade(failed: bool, warned: bool) -> Verdict:
    return Verdict.FAIL if failed else Verdict.WARN if warned else Verdict.PASS


def per_base_quality(groups: Iterable[tuple[float | None, float | None]]) -> Verdict:
    """From (lower quartile, median) of each position group (FastQC's default groups):
    fail when a group's lower quartile is below 5 or its median below 20, warn below 10 or
    25. Groups FastQC prints as NaN (``None``) are skipped, as FastQC skips them."""
    rows = [(lower, median) for lower, median in groups if lower is not None
            and median is not None]
    return _grade(
        any(lower < QUALITY_BASE_LOWER.error or median < QUALITY_BASE_MEDIAN.error
            for lower, median in rows),
        any(lower < QUALITY_BASE_LOWER.warn or median < QUALITY_BASE_MEDIAN.warn
            for lower, median in rows))


def per_sequence_quality(distribution: Mapping[int, int]) -> Verdict:
    """From reads counted by mean quality: the most frequent mean (the lowest of equally
    frequent ones) at or below 20 fails, at or below 27 warns. No reads: pass."""
    counted = {quality: count for quality, count in distribution.items() if count > 0}
    if not counted:
        return Verdict.PASS
    mode = min(counted, key=lambda quality: (-counted[quality], quality))
    return _grade(mode <= QUALITY_SEQUENCE.error, mode <= QUALITY_SEQUENCE.warn)


def per_base_content(rows: Iterable[tuple[float, float, float, float]]) -> Verdict:
    """From the percentages (G, A, T, C) of each position group: the difference between A
    and T, or between G and C, above 20 fails, above 10 warns."""
    differences = [max(abs(g - c), abs(a - t)) for g, a, t, c in rows]
    return _grade(any(d > SEQUENCE.error for d in differences),
                  any(d > SEQUENCE.warn for d in differences))


def gc_deviation(counts: Sequence[float]) -> float:
    """The percentage of reads outside the normal distribution FastQC fits to the
    per-sequence GC counts (index = GC percentage, 0 to 100).

    FastQC takes the mode (averaged over the neighbours within 10% of its count, unless that
    run reaches an end), the standard deviation around it, and sums the absolute
    differences between the counts and the normal curve scaled to the total.
    """
    return _gc_fit(counts)[0]


def theoretical_gc(counts: Sequence[float]) -> list[float]:
    """FastQC's theoretical (normal) GC curve for ``counts``, on the same 0-100 axis."""
    return _gc_fit(counts)[1]


def _gc_fit(counts: Sequence[float]) -> tuple[float, list[float]]:
    total = float(sum(counts))
    if total <= 0:
        return 0.0, [0.0] * len(counts)
    first_mode = 0
    for index, count in enumerate(counts):
        if count > counts[first_mode]:
            first_mode = index
    near = counts[first_mode] - counts[first_mode] / 10
    mode_sum, members = 0.0, 0
    fell_off_top = True
    for index in range(first_mode, len(counts)):
        if counts[index] > near:
            mode_sum += index
            members += 1
        else:
            fell_off_top = False
            break
    fell_off_bottom = True
    for index in range(first_mode - 1, -1, -1):
        if counts[index] > near:
            mode_sum += index
            members += 1
        else:
            fell_off_bottom = False
            break
    mode = float(first_mode) if fell_off_top or fell_off_bottom else mode_sum / members
    variance = sum((index - mode) ** 2 * count for index, count in enumerate(counts))
    stdev = math.sqrt(variance / (total - 1)) if total > 1 else 0.0
    curve = []
    deviation = 0.0
    for index, count in enumerate(counts):
        if stdev > 0:
            density = math.exp(-((index - mode) ** 2) / (2 * stdev * stdev)) / (
                stdev * math.sqrt(2 * math.pi))
        else:
            density = 1.0 if index == mode else 0.0
        expected = density * total
        curve.append(expected)
        deviation += abs(expected - count)
    return deviation / total * 100, curve


def per_sequence_gc(counts: Sequence[float]) -> Verdict:
    """From reads counted by GC percentage: more than 30% of them outside FastQC's fitted
    normal distribution fails, more than 15% warns."""
    deviation = gc_deviation(counts)
    return _grade(deviation > GC_SEQUENCE.error, deviation > GC_SEQUENCE.warn)


def per_base_n(percentages: Iterable[float]) -> Verdict:
    """From the N percentage of each position group: above 20 fails, above 5 warns."""
    values = list(percentages)
    return _grade(any(v > N_CONTENT.error for v in values),
                  any(v > N_CONTENT.warn for v in values))


def length_distribution(min_length: int, max_length: int, reads: int) -> Verdict:
    """A zero-length read fails; reads of differing lengths warn; one length passes."""
    if reads == 0:
        return Verdict.PASS
    return _grade(min_length == 0, min_length != max_length)


def duplication(deduplicated_percentage: float) -> Verdict:
    """From the percentage of reads left after deduplication (FastQC's "Total Deduplicated
    Percentage"): below 50 fails, below 70 warns."""
    return _grade(deduplicated_percentage < DUPLICATION.error,
                  deduplicated_percentage < DUPLICATION.warn)


def overrepresented(percentages: Iterable[float]) -> Verdict:
    """From the listed overrepresented sequences (those above 0.1% of the reads): any
    warns, one above 1% fails."""
    values = list(percentages)
    return _grade(any(v > OVERREPRESENTED.error for v in values), bool(values))


def adapter_content(rows: Iterable[Iterable[float]]) -> Verdict:
    """From the cumulative percentage of each adapter at each position group: above 10
    fails, above 5 warns. No positions at all (no read longer than the 12-base adapters:
    FastQC's "read length is too short") warns, as in FastQC."""
    values = [value for row in rows for value in row]
    if not values:
        return Verdict.WARN
    return _grade(any(v > ADAPTER.error for v in values),
                  any(v > ADAPTER.warn for v in values))


def per_tile_quality(deviations: Iterable[Iterable[float]]) -> Verdict:
    """From each tile's deviation from the all-tile average at each position group: a
    deviation of more than 10 either way fails, more than 5 warns (FastQC compares the
    absolute value, so a tile much better than the others is flagged too)."""
    largest = max((abs(value) for row in deviations for value in row), default=0.0)
    return _grade(largest > TILE.error, largest > TILE.warn)


@dataclass(frozen=True)
class GroupContent:
    """FastQC's per-base sequence content and N content of one position group: the
    percentages of G, A, T and C among the group's A, C, G and T (``None`` when it has
    none), and the percentage of N among all its bases."""

    label: str
    g: float | None
    a: float | None
    t: float | None
    c: float | None
    n: float


def grouped_content(report: QCReport) -> list[GroupContent]:
    """Base content and N content in FastQC's default position groups, summed over each
    group's positions as FastQC sums them (empty for records without base counts)."""
    counts = report.per_base_counts
    covering = {b.position: b.count for b in report.per_base_quality}
    groups = []
    for first, last in fastqc_base_groups(len(counts)):
        rows = counts[first - 1:last]
        a, c, g, t, n = (sum(row[i] for row in rows) for i in range(5))
        seen = sum(covering.get(p, 0) for p in range(first, last + 1))
        acgt = a + c + g + t
        label = str(first) if first == last else f"{first}-{last}"

        def share(value: int, total: int = acgt) -> float | None:
            return value / total * 100 if total else None

        groups.append(GroupContent(label, share(g), share(a), share(t), share(c),
                                   n / seen * 100 if seen else 0.0))
    return groups


def report_of(stored: Mapping[str, Any]) -> QCReport:
    """The :class:`QCReport` of a stored QC record (its ``to_dict`` form)."""
    return QCReport(
        file_type=stored["fileType"], encoding=stored["encoding"],
        total_sequences=stored["totalSequences"],
        filtered_sequences=stored["filteredSequences"], total_bases=stored["totalBases"],
        min_length=stored["minLength"], max_length=stored["maxLength"],
        gc_content=stored["gcContent"],
        overrepresented_sequences=[
            OverrepresentedSequence(sequence=item["sequence"],
                                    count=item["overrepresentedSequenceCount"],
                                    percentage=item["percentage"],
                                    possible_source=item["possibleSource"])
            for item in stored.get("overrepresentedSequences", [])],
        per_base_quality=[
            BaseQuality(position=int(item["base"]), count=item["count"], mean=item["mean"],
                        median=item["median"], lower_quartile=item["lowerQuartile"],
                        upper_quartile=item["upperQuartile"],
                        percentile_10=item["percentile10"], percentile_90=item["percentile90"])
            for item in stored.get("perBaseQuality", [])],
        per_sequence_quality={int(quality): count for quality, count
                              in stored.get("perSequenceQuality", {}).items()},
        per_base_counts=[(row[0], row[1], row[2], row[3], row[4])
                         for row in stored.get("perBaseCounts", [])],
        length_counts={int(length): count
                       for length, count in stored.get("lengthCounts", {}).items()},
        gc_distribution=list(stored.get("gcDistribution", [])),
        # Missing in records made before these tables were kept: not measured.
        duplication=(DuplicationLevels.from_dict(stored["duplicationLevels"])
                     if "duplicationLevels" in stored else None),
        adapter_content=(AdapterContent.from_dict(stored["adapterContent"])
                         if "adapterContent" in stored else None),
        per_tile_quality=(PerTileQuality.from_dict(stored["perTileQuality"])
                          if "perTileQuality" in stored else None),
    )


def verdicts(report: QCReport) -> list[ModuleVerdict]:
    """Every FastQC module's verdict on a stored report, in FastQC's order; ``None`` for the
    modules whose numbers the record does not hold (records made before they were kept;
    per-tile quality also for reads whose names carry no tile, which FastQC leaves out)."""
    judged: dict[str, Verdict] = {
        BASIC: Verdict.PASS,
        PER_BASE_QUALITY: per_base_quality(
            (group.lower_quartile, group.median)
            for group in report.grouped_per_base_quality()),
        PER_SEQUENCE_QUALITY: per_sequence_quality(report.per_sequence_quality),
        LENGTH_DISTRIBUTION: length_distribution(report.min_length, report.max_length,
                                                 report.total_sequences),
        OVERREPRESENTED_SEQUENCES: overrepresented(
            item.percentage for item in report.overrepresented_sequences),
    }
    if report.per_base_counts:
        content = grouped_content(report)
        judged[PER_BASE_CONTENT] = per_base_content(
            (row.g, row.a, row.t, row.c) for row in content
            if row.g is not None and row.a is not None and row.t is not None
            and row.c is not None)
        judged[PER_BASE_N] = per_base_n(row.n for row in content)
    if report.gc_distribution:
        judged[PER_SEQUENCE_GC] = per_sequence_gc(report.gc_distribution)
    if report.duplication is not None:
        judged[DUPLICATION_LEVELS] = duplication(report.duplication.deduplicated_percentage)
    if report.adapter_content is not None:
        judged[ADAPTER_CONTENT] = adapter_content(report.adapter_content.percentages)
    if report.per_tile_quality is not None:
        judged[PER_TILE_QUALITY] = per_tile_quality(report.per_tile_quality.deviations)
    return [ModuleVerdict(module, judged.get(module)) for module in MODULES]


def worst(judged: Iterable[ModuleVerdict]) -> Verdict | None:
    """The gravest verdict of the measured modules (``None`` if none was measured)."""
    order = list(Verdict)
    found = [item.verdict for item in judged if item.verdict is not None]
    return max(found, key=order.index) if found else None


__all__ = ["MODULES", "GroupContent", "Limits", "ModuleVerdict", "Verdict", "adapter_content",
           "duplication", "gc_deviation", "grouped_content", "length_distribution",
           "overrepresented", "per_base_content", "per_base_n", "per_base_quality",
           "per_sequence_gc", "per_sequence_quality", "per_tile_quality", "report_of",
           "theoretical_gc", "verdicts", "worst"]
