"""FastQC's (0.11.9) duplication, adapter and per-tile modules, from the engine's counts.

The engine counts what these modules need while it streams the file (the tracked
sequences, where each adapter is first found in each read, the qualities of every tenth
read by tile); the functions here turn those counts into the tables FastQC prints, with
FastQC's own arithmetic (summation order included) so the numbers can be compared with
FastQC's ``fastqc_data.txt``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from .counting import gather_rows
from .fastqc_rules import ADAPTER_LENGTH, ADAPTERS, TILE_LIMIT, TILE_SAMPLING, encoding_for
from .report import AdapterContent, DuplicationLevels, PerTileQuality, fastqc_base_groups

DUPLICATION_LABELS = (*(str(level) for level in range(1, 10)),
                      ">10", ">50", ">100", ">500", ">1k", ">5k", ">10k")


def _duplication_slot(level: int) -> int:
    slot = level - 1
    for floor, index in ((9999, 15), (4999, 14), (999, 13), (499, 12), (99, 11), (49, 10),
                         (9, 9)):
        if slot > floor:
            return index
    return slot


def corrected_count(count_at_limit: int, total: int, level: int, observed: int) -> float:
    """FastQC's estimate of how many distinct sequences have ``level`` copies, from the
    ``observed`` ones among those it tracked (the distinct sequences first seen within the
    first ``count_at_limit`` of ``total`` reads): ``observed`` divided by the chance that a
    sequence with ``level`` copies shows up within the first ``count_at_limit`` reads.

    FastQC multiplies that chance out read by read (stopping once it is too small to move
    the count by 0.01); here the same products are taken in blocks by numpy, in the same
    order, so the result is the same double.
    """
    if count_at_limit == total or total - observed < count_at_limit:
        return float(observed)
    limit = 1 - observed / (observed + 0.01)
    p_not_seeing = 1.0
    block = 1 << 16
    for start in range(0, count_at_limit, block):
        index = np.arange(start, min(count_at_limit, start + block), dtype=np.int64)
        remaining = total - index
        factors = (remaining - level) / remaining.astype(np.float64)
        factors[0] *= p_not_seeing
        products = np.cumprod(factors)
        if (products < limit).any():
            p_not_seeing = 0.0
            break
        p_not_seeing = float(products[-1])
    return observed / (1 - p_not_seeing)


def duplication_levels(counts: Iterable[int], count_at_limit: int,
                       total: int) -> DuplicationLevels:
    """FastQC's duplication table from the copy numbers of the tracked sequences (the
    overrepresented-sequence dictionary: first 100,000 distinct sequences, reads over 75
    bases cut to 50). ``count_at_limit`` is the number of reads read when the last tracked
    sequence was first seen (``total`` if the dictionary never filled up)."""
    collated = Counter(counts)
    deduplicated = [0.0] * len(DUPLICATION_LABELS)
    every = [0.0] * len(DUPLICATION_LABELS)
    dedup_total = raw_total = 0.0
    for level in sorted(collated):
        count = corrected_count(count_at_limit, total, level, collated[level])
        dedup_total += count
        raw_total += count * level
        slot = _duplication_slot(level)
        deduplicated[slot] += count
        every[slot] += count * level
    if raw_total == 0:
        return DuplicationLevels(100.0, list(DUPLICATION_LABELS), deduplicated, every)
    return DuplicationLevels(
        deduplicated_percentage=dedup_total / raw_total * 100,
        levels=list(DUPLICATION_LABELS),
        deduplicated=[value / dedup_total * 100 for value in deduplicated],
        total=[value / raw_total * 100 for value in every])


def adapter_content(first_hits: np.ndarray, reads: int, longest: int) -> AdapterContent:
    """FastQC's adapter table from ``first_hits[a, i]``, the reads in which adapter ``a``
    (of :data:`ADAPTERS`) is first found at 0-based offset ``i``.

    A read counts at every position from its hit to the end, so each position holds the
    reads with the adapter at or before it; positions run up to the longest read minus the
    adapter length, and are averaged over FastQC's position groups.
    """
    names = [name for name, _sequence in ADAPTERS]
    if longest <= ADAPTER_LENGTH or reads == 0:
        return AdapterContent(names, [], [[] for _ in names])
    width = longest - ADAPTER_LENGTH + 1
    hits = np.zeros((len(ADAPTERS), width), dtype=np.int64)
    kept = min(width, first_hits.shape[1]) if first_hits.ndim == 2 else 0
    if kept:
        hits[:, :kept] = first_hits[:, :kept]
    cumulative = np.cumsum(hits, axis=1).tolist()
    groups = fastqc_base_groups(width)
    percentages = []
    for row in cumulative:
        values = []
        for first, last in groups:
            total = 0.0
            for position in range(first - 1, last):
                total += row[position] * 100.0 / reads
            values.append(total / (last - first + 1))
        percentages.append(values)
    return AdapterContent(names, [_label(first, last) for first, last in groups], percentages)


def _label(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


_JAVA_INT = re.compile(rb"[+-]?[0-9]+")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_COLON = ord(":")
_MATRIX_CELLS = 4_000_000
_POWERS_OF_TEN = 10 ** np.arange(10, dtype=np.int64)
# Names and quality lines up to this long are read 32 bytes at a time (gather_rows).
_GATHERED_WIDTH = 1024


@dataclass
class _Tile:
    sums: np.ndarray
    counts: np.ndarray
    lowest: int = 1000  # lowest quality character seen (FastQC's "none" is 1000)


@dataclass
class TileTally:
    """FastQC's per-tile quality counters, fed chunk by chunk in file order.

    FastQC looks at every 10th read of the file. The tile is a field of the read's name
    split on ``:``: the 5th when the first read looked at has at least 7 fields (Illumina
    1.8+: ``@instrument:run:flowcell:lane:tile:x:y``), else the 3rd when it has at least
    5 (older Illumina names). A name without that field or whose field is not an
    integer, or more than 1,000 tiles, stops the module (``ignored``): FastQC then leaves
    it out of its report, and so does the record.
    """

    ignored: bool = False
    split_position: int | None = None
    length: int = 0
    tiles: dict[int, _Tile] = field(default_factory=dict)

    def add(self, data: np.ndarray, seq_starts: np.ndarray, qual_starts: np.ndarray,
            lengths: np.ndarray, reads_before: int) -> None:
        """Count a chunk's sampled reads; ``reads_before`` is the number of reads of the
        file before the chunk (the chunk's reads are numbered from ``reads_before + 1``)."""
        if self.ignored or lengths.size == 0:
            return
        picked = np.arange((-(reads_before + 1)) % TILE_SAMPLING, lengths.size, TILE_SAMPLING)
        if picked.size == 0:
            return
        record_starts = np.empty_like(seq_starts)
        record_starts[0] = 0
        record_starts[1:] = qual_starts[:-1] + lengths[:-1] + 1
        tiles = self._tiles(data, record_starts[picked], seq_starts[picked] - 1)
        if tiles is None:
            self._give_up()
            return
        self._count(data, tiles, qual_starts[picked], lengths[picked])

    def _give_up(self) -> None:
        self.ignored = True
        self.tiles.clear()

    def _tiles(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[int] | None:
        """The tile of each name ``data[start:end]``, or ``None`` if FastQC gives up.

        Names are cut into fields with numpy (a matrix of the names' bytes); names that do
        not end in a plain number field the way Illumina's do are left to the exact,
        slower reading of :meth:`_tiles_one_by_one`."""
        widths = ends - starts
        width = int(widths.max()) if widths.size else 0
        columns = np.arange(max(width, 1))
        inside = columns < widths[:, None]
        if width <= _GATHERED_WIDTH:
            names = gather_rows(data, starts, columns.size)
        else:
            names = data.take(np.where(inside, starts[:, None] + columns, 0))
        colons = (names == _COLON) & inside
        last = data.take(np.maximum(ends - 1, 0))
        fields = colons.sum(axis=1) + 1
        if self.split_position is None:
            if fields[0] >= 7:
                self.split_position = 4
            elif fields[0] >= 5:
                self.split_position = 2
            else:
                return None
        position = self.split_position
        in_field = (np.cumsum(colons, axis=1) == position) & ~colons & inside
        digits = names.astype(np.int64) - ord("0")
        plain = np.all(~in_field | ((digits >= 0) & (digits <= 9)), axis=1)
        count = in_field.sum(axis=1)
        if (np.any(last == _COLON) or not plain.all() or (count == 0).any()
                or (count > 9).any()):
            return self._tiles_one_by_one(data, starts, ends)
        if (fields <= position).any():
            return None
        power = count[:, None] - np.cumsum(in_field, axis=1)
        values = np.where(in_field, digits * _POWERS_OF_TEN.take(np.clip(power, 0, 9)), 0)
        return cast("list[int]", values.sum(axis=1).tolist())

    def _tiles_one_by_one(self, data: np.ndarray, starts: np.ndarray,
                          ends: np.ndarray) -> list[int] | None:
        """Java's ``String.split(":")`` and ``Integer.parseInt``, name by name."""
        buffer = data.data
        position = self.split_position
        assert position is not None
        found = []
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            fields = bytes(buffer[start:end]).split(b":")
            while len(fields) > 1 and not fields[-1]:  # Java's split drops trailing ""
                fields.pop()
            if len(fields) <= position or not _JAVA_INT.fullmatch(fields[position]):
                return None
            tile = int(fields[position])
            if not _INT_MIN <= tile <= _INT_MAX:
                return None
            found.append(tile)
        return found

    def _count(self, data: np.ndarray, tiles: list[int], qual_starts: np.ndarray,
               lengths: np.ndarray) -> None:
        longest = int(lengths.max())
        if longest > self.length:
            for counters in self.tiles.values():
                counters.sums = _widen(counters.sums, longest)
                counters.counts = _widen(counters.counts, longest)
            self.length = longest
        for number in dict.fromkeys(tiles):  # first-seen order, like FastQC's insertions
            if number not in self.tiles:
                if len(self.tiles) > TILE_LIMIT:
                    self._give_up()
                    return
                self.tiles[number] = _Tile(np.zeros(self.length, np.int64),
                                         np.zeros(self.length, np.int64))
        # Long reads: a few rows at a time, so the quality matrix stays small.
        step = max(1, _MATRIX_CELLS // max(longest, 1))
        for start in range(0, len(tiles), step):
            self._count_rows(data, tiles[start : start + step],
                             qual_starts[start : start + step], lengths[start : start + step])

    def _count_rows(self, data: np.ndarray, tiles: list[int], qual_starts: np.ndarray,
                    lengths: np.ndarray) -> None:
        longest = int(lengths.max())
        if longest == 0:
            return
        columns = np.arange(longest)
        if longest <= _GATHERED_WIDTH:
            values = gather_rows(data, qual_starts, longest)
        if int(lengths.min()) == longest:  # the usual case: no ragged rows to mask
            if longest > _GATHERED_WIDTH:
                values = data.take(qual_starts[:, None] + columns)
            lowest_per_read = values.min(axis=1)
            inside = None
        else:
            inside = columns < lengths[:, None]
            if longest > _GATHERED_WIDTH:
                values = data.take(np.where(inside, qual_starts[:, None] + columns, 0))
            values[~inside] = 0
            lowest_per_read = np.where(inside, values, 255).min(axis=1)
        numbers, inverse = np.unique(np.array(tiles, dtype=np.int64), return_inverse=True)
        if numbers.size > 1:
            order = np.argsort(inverse, kind="stable")
            values, lowest_per_read = values[order], lowest_per_read[order]
            if inside is not None:
                inside = inside[order]
            bounds = np.flatnonzero(np.r_[True, np.diff(inverse[order]) != 0])
        else:
            bounds = np.zeros(1, dtype=np.intp)
        # int32 is enough: a call has at most _MATRIX_CELLS / longest rows of bytes.
        sums = np.add.reduceat(values, bounds, axis=0, dtype=np.int32)
        if inside is None:
            reads = np.diff(np.r_[bounds, lengths.size])
            counts = np.repeat(reads[:, None], longest, axis=1)
        else:
            counts = np.add.reduceat(inside, bounds, axis=0, dtype=np.int32)
        lowest = np.minimum.reduceat(lowest_per_read, bounds)
        for row, number in enumerate(numbers.tolist()):
            counters = self.tiles[number]
            counters.sums[:longest] += sums[row]
            counters.counts[:longest] += counts[row]
            counters.lowest = min(counters.lowest, int(lowest[row]))

    def table(self) -> PerTileQuality | None:
        """FastQC's per-tile table, or ``None`` when FastQC would leave the module out."""
        if self.ignored or self.length == 0 or not self.tiles:
            return None
        lowest = self.tiles[_java_hashmap_first(list(self.tiles))].lowest
        offset = encoding_for(lowest if lowest < 1000 else 33)[1]
        groups = fastqc_base_groups(self.length)
        numbers = sorted(self.tiles)
        means = []
        for number in numbers:
            counters = self.tiles[number]
            sums, counts = counters.sums.tolist(), counters.counts.tolist()
            row = []
            for first, last in groups:
                total, seen = 0.0, 0
                for position in range(first - 1, last):
                    if counts[position] > 0:
                        seen += 1
                        total += (sums[position] - offset * counts[position]) / counts[position]
                row.append(total / seen if seen else 0.0)
            means.append(row)
        averages = [0.0] * len(groups)
        for row in means:
            for index, value in enumerate(row):
                averages[index] += value
        averages = [value / len(numbers) for value in averages]
        return PerTileQuality(
            tiles=numbers,
            positions=[_label(first, last) for first, last in groups],
            deviations=[[value - averages[index] for index, value in enumerate(row)]
                        for row in means])


def _widen(array: np.ndarray, length: int) -> np.ndarray:
    wider = np.zeros(length, dtype=array.dtype)
    wider[: array.size] = array
    return wider


def _java_hashmap_first(keys: list[int]) -> int:
    """The key a ``java.util.HashMap<Integer, ...>`` filled with ``keys`` (in that order)
    iterates first: FastQC takes the encoding of its per-tile table from that tile."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: int) -> int:
        hashed = key & 0xFFFFFFFF
        return (hashed ^ (hashed >> 16)) & (capacity - 1)

    return min(enumerate(keys), key=lambda item: (bucket(item[1]), item[0]))[1]
