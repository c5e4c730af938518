"""The quality-control record stored for every uploaded FASTQ file.

Labs compare these numbers with the ones FastQC prints, so every field is defined the way
FastQC (0.11.9) defines it; the docstrings say where FastQC's definition is surprising.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class QCError(Exception):
    """An input that cannot be quality-controlled (not FASTQ, truncated, corrupt, ...).

    ``reason`` is a sentence meant for the uploader, so it names the problem (and the
    record or line where it was found) rather than the exception that revealed it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class OverrepresentedSequence:
    """One row of FastQC's "Overrepresented sequences" table.

    ``sequence`` is what FastQC counted: the upper-cased read, or its first 50 bases
    when the read is longer than 75 bases. ``percentage`` is ``count / total * 100``
    as a double, exactly as FastQC computes it (it prints the full double).
    """

    sequence: str
    count: int
    percentage: float
    possible_source: str

    def to_dict(self) -> dict[str, Any]:
        """The REST representation (camelCase keys)."""
        return {
            "sequence": self.sequence,
            "overrepresentedSequenceCount": self.count,
            "percentage": self.percentage,
            "possibleSource": self.possible_source,
        }


@dataclass(frozen=True)
class BaseQuality:
    """Quality statistics of one read position (1-based), in Phred units.

    FastQC only reports percentiles for a position seen in more than 100 reads (it
    prints NaN otherwise); those are ``None`` here. The mean is reported whenever the
    position was seen at all. ``count`` (the number of reads that reach the position)
    is kept so that FastQC's position groups can be recomputed exactly, see
    :func:`fastqc_base_groups` and :meth:`QCReport.grouped_per_base_quality`.
    """

    position: int
    count: int
    mean: float
    median: float | None
    lower_quartile: float | None
    upper_quartile: float | None
    percentile_10: float | None
    percentile_90: float | None

    def to_dict(self) -> dict[str, Any]:
        """The REST representation (camelCase keys, ``None`` for unreported values)."""
        return {
            "base": str(self.position),
            "count": self.count,
            "mean": self.mean,
            "median": self.median,
            "lowerQuartile": self.lower_quartile,
            "upperQuartile": self.upper_quartile,
            "percentile10": self.percentile_10,
            "percentile90": self.percentile_90,
        }


@dataclass(frozen=True)
class BaseGroupQuality:
    """Quality statistics of a FastQC position group such as ``10-14``.

    FastQC averages the per-position values of the positions in the group (means over
    positions seen at all, percentiles over positions seen more than 100 times).
    """

    first: int
    last: int
    mean: float
    median: float | None
    lower_quartile: float | None
    upper_quartile: float | None
    percentile_10: float | None
    percentile_90: float | None

    @property
    def label(self) -> str:
        """FastQC's "#Base" label: ``"7"`` or ``"10-14"``."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


@dataclass(frozen=True)
class DuplicationLevels:
    """FastQC's "Sequence Duplication Levels" table.

    ``levels`` are FastQC's 16 labels (``"1"`` ... ``"9"``, ``">10"``, ``">50"``,
    ``">100"``, ``">500"``, ``">1k"``, ``">5k"``, ``">10k"``); ``deduplicated`` and
    ``total`` the percentage of distinct and of all sequences at each level, after
    FastQC's correction for the sequences it stopped tracking; ``deduplicated_percentage``
    is "Total Deduplicated Percentage" (the share of reads left if deduplicated).
    """

    deduplicated_percentage: float
    levels: list[str]
    deduplicated: list[float]
    total: list[float]

    def to_dict(self) -> dict[str, Any]:
        return {"totalDeduplicatedPercentage": self.deduplicated_percentage,
                "levels": list(self.levels), "deduplicated": list(self.deduplicated),
                "total": list(self.total)}

    @classmethod
    def from_dict(cls, stored: Mapping[str, Any]) -> DuplicationLevels:
        return cls(stored["totalDeduplicatedPercentage"], list(stored["levels"]),
                   list(stored["deduplicated"]), list(stored["total"]))


@dataclass(frozen=True)
class AdapterContent:
    """FastQC's "Adapter Content" table: for each adapter of ``adapters``, the cumulative
    percentage of reads in which it was found at or before each position group of
    ``positions`` (FastQC's labels, e.g. ``"10-11"``). ``positions`` is empty when no read
    is longer than the adapters (FastQC: "read length is too short", a warning)."""

    adapters: list[str]
    positions: list[str]
    percentages: list[list[float]]

    def to_dict(self) -> dict[str, Any]:
        return {"adapters": list(self.adapters), "positions": list(self.positions),
                "percentages": [list(row) for row in self.percentages]}

    @classmethod
    def from_dict(cls, stored: Mapping[str, Any]) -> AdapterContent:
        return cls(list(stored["adapters"]), list(stored["positions"]),
                   [list(row) for row in stored["percentages"]])


@dataclass(frozen=True)
class PerTileQuality:
    """FastQC's "Per tile sequence quality" table: for each tile (ascending) and position
    group, the tile's mean quality minus the average of all tiles' means there."""

    tiles: list[int]
    positions: list[str]
    deviations: list[list[float]]

    def to_dict(self) -> dict[str, Any]:
        return {"tiles": list(self.tiles), "positions": list(self.positions),
                "deviations": [list(row) for row in self.deviations]}

    @classmethod
    def from_dict(cls, stored: Mapping[str, Any]) -> PerTileQuality:
        return cls([int(tile) for tile in stored["tiles"]], list(stored["positions"]),
                   [list(row) for row in stored["deviations"]])


def fastqc_base_groups(max_length: int, nogroup: bool = False) -> list[tuple[int, int]]:
    """FastQC's default (linear) grouping of read positions, as 1-based inclusive ranges.

    FastQC keeps positions 1-9 on their own and, for reads longer than 75 bases, bins the
    rest with the smallest interval of 2, 5, 10, 20, 50, 100, ... that yields fewer than 75
    groups (the second group runs from 10 to ``interval - 1`` when the interval exceeds
    10). ``--nogroup`` (``nogroup=True``) reports every position on its own.
    """
    if max_length <= 0:
        return []
    if nogroup or max_length <= 75:
        return [(p, p) for p in range(1, max_length + 1)]
    interval = _linear_interval(max_length)
    groups: list[tuple[int, int]] = []
    start = 1
    while start <= max_length:
        end = start + interval - 1
        if start < 10:
            end = start
        if start == 10 and interval > 10:
            end = interval - 1
        groups.append((start, min(end, max_length)))
        if start < 10:
            start += 1
        elif start == 10 and interval > 10:
            start = interval
        else:
            start += interval
    return groups


def _linear_interval(length: int) -> int:
    multiplier = 1
    while multiplier < 10_000_000:
        for base in (2, 5, 10):
            interval = base * multiplier
            groups = 9 + (length - 9) // interval + (1 if (length - 9) % interval else 0)
            if groups < 75:
                return interval
        multiplier *= 10
    raise ValueError(f"no FastQC position grouping for reads of length {length}")


def _average(values: Sequence[float]) -> float | None:
    # FastQC sums the doubles in position order and divides once; do the same so the
    # grouped values are bit-identical.
    if not values:
        return None
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


@dataclass(frozen=True)
class QCReport:
    """FastQC-compatible quality-control numbers of one FASTQ file.

    ``total_bases`` is the exact sum of read lengths (FastQC only prints a rounded,
    human-formatted version). ``gc_content`` is FastQC's truncated integer percentage
    ``(G + C) * 100 // (A + C + G + T)``: N and other symbols are left out of the
    denominator. ``per_sequence_quality`` maps FastQC's per-read mean quality (the
    integer part of the mean Phred score) to the number of reads; empty reads are not
    counted, as in FastQC. ``per_base_quality`` holds one entry per raw read position;
    FastQC's grouped table is :meth:`grouped_per_base_quality`.
    """

    file_type: str
    encoding: str
    total_sequences: int
    filtered_sequences: int
    total_bases: int
    min_length: int
    max_length: int
    gc_content: int
    overrepresented_sequences: list[OverrepresentedSequence] = field(default_factory=list)
    per_base_quality: list[BaseQuality] = field(default_factory=list)
    per_sequence_quality: dict[int, int] = field(default_factory=dict)
    # Reads with A, C, G, T and N (either case) at each position, 1-based order; and reads
    # by length. Empty in records made before they were kept (their modules: not measured).
    per_base_counts: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    length_counts: dict[int, int] = field(default_factory=dict)
    # FastQC's per-sequence GC content: reads by GC percentage (0-100), spread by its GC
    # model. Empty in records made before it was kept.
    gc_distribution: list[float] = field(default_factory=list)
    # FastQC's duplication, adapter and per-tile tables; ``None`` in records made before
    # they were kept, and per-tile quality also for reads without Illumina tile numbers.
    duplication: DuplicationLevels | None = None
    adapter_content: AdapterContent | None = None
    per_tile_quality: PerTileQuality | None = None

    def grouped_per_base_quality(self, nogroup: bool = False) -> list[BaseGroupQuality]:
        """Per-base quality in FastQC's position groups (``nogroup`` as ``--nogroup``)."""
        by_position: Mapping[int, BaseQuality] = {b.position: b for b in self.per_base_quality}
        groups = []
        for first, last in fastqc_base_groups(self.max_quality_length, nogroup):
            members = [by_position[p] for p in range(first, last + 1) if p in by_position]
            seen = [m for m in members if m.count > 0]
            well_seen = [m for m in seen if m.median is not None]

            def pick(name: str, rows: list[BaseQuality] = well_seen) -> float | None:
                return _average([getattr(r, name) for r in rows])

            mean = _average([m.mean for m in seen])
            groups.append(
                BaseGroupQuality(
                    first=first,
                    last=last,
                    mean=0.0 if mean is None else mean,
                    median=pick("median"),
                    lower_quartile=pick("lower_quartile"),
                    upper_quartile=pick("upper_quartile"),
                    percentile_10=pick("percentile_10"),
                    percentile_90=pick("percentile_90"),
                )
            )
        return groups

    @property
    def max_quality_length(self) -> int:
        """Length of the longest quality string (FastQC's number of positions)."""
        return max((b.position for b in self.per_base_quality), default=0)

    @property
    def mean_length(self) -> float:
        """Mean read length (0 for a file without reads)."""
        return self.total_bases / self.total_sequences if self.total_sequences else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready stored form, with camelCase keys: the REST representation plus
        ``perBaseCounts``, ``lengthCounts``, ``gcDistribution``, ``duplicationLevels``,
        ``adapterContent`` and ``perTileQuality`` (when measured), which REST leaves out
        (IRIDA's record has no such fields) and the QC report page draws.

        ``perSequenceQuality`` and ``lengthCounts`` keys are strings because JSON object keys
        are strings. NaN never appears: unreported percentiles are ``null``.
        """
        stored: dict[str, Any] = {
            "fileType": self.file_type,
            "encoding": self.encoding,
            "totalSequences": self.total_sequences,
            "filteredSequences": self.filtered_sequences,
            "totalBases": self.total_bases,
            "minLength": self.min_length,
            "maxLength": self.max_length,
            "gcContent": self.gc_content,
            "overrepresentedSequences": [o.to_dict() for o in self.overrepresented_sequences],
            "perBaseQuality": [b.to_dict() for b in self.per_base_quality],
            "perSequenceQuality": {
                str(quality): count for quality, count in sorted(self.per_sequence_quality.items())
            },
            "perBaseCounts": [list(row) for row in self.per_base_counts],
            "lengthCounts": {str(length): count
                             for length, count in sorted(self.length_counts.items())},
            "gcDistribution": list(self.gc_distribution),
        }
        if self.duplication is not None:
            stored["duplicationLevels"] = self.duplication.to_dict()
        if self.adapter_content is not None:
            stored["adapterContent"] = self.adapter_content.to_dict()
        if self.per_tile_quality is not None:
            stored["perTileQuality"] = self.per_tile_quality.to_dict()
        return stored


def finite_or_none(value: float) -> float | None:
    """Map FastQC's NaN ("not enough data") to ``None`` so reports stay JSON-safe."""
    return None if math.isnan(value) else value
