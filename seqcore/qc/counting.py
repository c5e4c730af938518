"""Vectorised counting of FASTQ chunks: the per-byte work of the QC engine.

A *chunk* is a buffer of complete 4-line FASTQ records (as produced by
``dnaio.read_chunks``). :func:`count_chunk` turns it into numbers with a handful of numpy
passes instead of a Python loop per read, adds the order-independent numbers to a
:class:`Tally` and returns the order-dependent part (the overrepresented-sequence keys,
in first-seen order) to the caller, which merges chunks in file order.

Chunks that are not plain 4-line FASTQ (blank lines, CRLF line ends, multi-line records)
raise :class:`IrregularChunk`; the engine then re-reads the file with the tolerant,
line-by-line reader in :mod:`seqcore.qc.tolerant`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .fastqc_rules import (
    ADAPTER_LENGTH,
    ADAPTERS,
    OVERREPRESENTED_LONG_READ,
    OVERREPRESENTED_PREFIX,
)
from .report import QCError

# Quality characters FastQC accepts: '!' (33) to '~' (126).
QUAL_LOW = 33
QUAL_HIGH = 126
QUAL_WIDTH = QUAL_HIGH - QUAL_LOW + 1
#: The letters counted at each read position (FastQC's base content and N content), in
#: the column order of :attr:`Tally.position_bases`.
POSITION_LETTERS = b"ACGTN"

_NEWLINE = 10
_CR = 13
_AT = ord("@")
_PLUS = ord("+")


class IrregularChunk(Exception):
    """The chunk is not plain 4-line, LF-terminated FASTQ; re-read it tolerantly."""


class ChunkError(Exception):
    """Bad data in a chunk; ``message`` has a ``{record}`` placeholder for the number.

    Chunks are counted without knowing how many records came before them (a worker
    process sees only its chunk), so the message is completed by whoever knows:
    :meth:`to_qc_error` with the 1-based number of the chunk's first record.
    """

    def __init__(self, index: int, message: str) -> None:
        super().__init__(index, message)
        self.index = index
        self.message = message

    def to_qc_error(self, first_record: int) -> QCError:
        return QCError(self.message.format(record=first_record + self.index))


@dataclass
class Tally:
    """Order-independent counters; tallies of different chunks simply add up.

    ``quality`` has one row per read position and one column per quality character
    from '!' to '~'; ``mean_quality`` counts reads by FastQC's per-read average (sum of
    raw quality characters // length, still offset-encoded).
    """

    reads: int = 0
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    bases: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    quality: np.ndarray = field(default_factory=lambda: np.zeros((0, QUAL_WIDTH), np.int64))
    mean_quality: np.ndarray = field(default_factory=lambda: np.zeros(128, dtype=np.int64))
    # One row per read position: the reads with A, C, G, T or N there (either case).
    position_bases: np.ndarray = field(
        default_factory=lambda: np.zeros((0, len(POSITION_LETTERS)), np.int64))
    # (length FastQC's GC module sees, G+C count) → reads; see gc_length().
    gc_reads: Counter[tuple[int, int]] = field(default_factory=Counter)
    # adapter_hits[a, i]: reads whose first occurrence of adapter a starts at offset i.
    adapter_hits: np.ndarray = field(
        default_factory=lambda: np.zeros((len(ADAPTERS), 0), np.int64))

    def add_adapter_hits(self, adapter: int, counts: np.ndarray) -> None:
        if counts.size > self.adapter_hits.shape[1]:
            wider = np.zeros((len(ADAPTERS), counts.size), np.int64)
            wider[:, : self.adapter_hits.shape[1]] = self.adapter_hits
            self.adapter_hits = wider
        self.adapter_hits[adapter, : counts.size] += counts

    def add_lengths(self, counts: np.ndarray) -> None:
        self.lengths = _grow(self.lengths, counts.shape[0])
        self.lengths[: counts.shape[0]] += counts

    def add_quality(self, counts: np.ndarray) -> None:
        self.quality = _grow(self.quality, counts.shape[0])
        self.quality[: counts.shape[0]] += counts

    def add_position_bases(self, counts: np.ndarray) -> None:
        self.position_bases = _grow(self.position_bases, counts.shape[0])
        self.position_bases[: counts.shape[0]] += counts

    def merge(self, other: Tally) -> None:
        """Add another tally (e.g. a worker process's) to this one."""
        self.reads += other.reads
        self.add_lengths(other.lengths)
        self.bases += other.bases
        self.add_quality(other.quality)
        self.mean_quality += other.mean_quality
        self.add_position_bases(other.position_bases)
        self.gc_reads.update(other.gc_reads)
        for adapter, counts in enumerate(other.adapter_hits):
            self.add_adapter_hits(adapter, counts)


@dataclass
class ChunkDetail:
    """What the order-dependent modules need of a chunk besides its keys, filled in by
    :func:`count_chunk` when asked: where each record's sequence and quality lines start
    and the reads' lengths (per-tile quality samples reads by their number in the file),
    and, if ``key_order`` is a list, every read's key in order (the duplication module
    needs the number of the read that filled the tracked-sequence dictionary). Once that
    dictionary is full, ``tracked`` (its keys' hashes) limits the keys returned to those
    that may be tracked."""

    seq_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    qual_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    key_order: list[bytes] | None = None
    tracked: TrackedKeys | None = None


def _grow(array: np.ndarray, rows: int) -> np.ndarray:
    if array.shape[0] >= rows:
        return array
    grown = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown


def count_chunk(data: np.ndarray, tally: Tally,
                detail: ChunkDetail | None = None) -> Counter[bytes]:
    """Count one chunk of complete FASTQ records into ``tally``.

    Returns the overrepresented-sequence keys of the chunk (upper-cased reads, cut to
    50 bases when longer than 75) with their counts, in first-seen order, so that the
    caller can apply FastQC's "first 100,000 distinct sequences" rule in file order.
    Raises :class:`IrregularChunk` or :class:`ChunkError`. ``detail``, when given, is
    filled in (see :class:`ChunkDetail`).
    """
    if data.size == 0:
        return Counter()
    if data[-1] != _NEWLINE:
        # Only the last chunk of a file can lack the final line end.
        data = np.concatenate([data, np.array([_NEWLINE], dtype=np.uint8)])
    newlines = np.flatnonzero(data == _NEWLINE)
    if data.min() == 0:  # a quarter of the cost of looking for the NUL's position
        # A NUL is no base, quality or name character: a damaged or binary file.
        nul = int(np.flatnonzero(data == 0)[0])
        raise ChunkError(int(np.searchsorted(newlines, nul) // 4),
                         "record {record} holds a NUL byte")
    if newlines.size % 4:
        raise IrregularChunk("line count is not a multiple of four")
    starts = np.empty_like(newlines)
    starts[0] = 0
    starts[1:] = newlines[:-1] + 1
    header_starts = starts[0::4]
    if not (np.all(data[header_starts] == _AT) and np.all(data[starts[2::4]] == _PLUS)):
        raise IrregularChunk("records are not aligned on 4-line boundaries")
    # The byte before each line end (for an empty line, the previous line end; for an
    # empty first line, the chunk's last byte, a line end too).
    if np.any(data[newlines - 1] == _CR):
        raise IrregularChunk("CRLF line ends")

    seq_starts = starts[1::4]
    seq_lengths = newlines[1::4] - seq_starts
    qual_starts = starts[3::4]
    qual_lengths = newlines[3::4] - qual_starts
    if not np.array_equal(seq_lengths, qual_lengths):
        bad = int(np.flatnonzero(seq_lengths != qual_lengths)[0])
        raise ChunkError(
            bad,
            f"record {{record}} has a sequence of {int(seq_lengths[bad])} bases "
            f"but {int(qual_lengths[bad])} quality characters",
        )

    tally.reads += seq_starts.size
    tally.add_lengths(np.bincount(seq_lengths))
    if detail is not None:
        detail.seq_starts, detail.qual_starts, detail.lengths = (
            seq_starts, qual_starts, seq_lengths)
    if int(seq_lengths.max()) == 0:
        if detail is not None and detail.key_order is not None:
            detail.key_order.extend([b""] * int(seq_starts.size))
        return Counter({b"": int(seq_starts.size)})
    if detail is None:
        return _count_records(data, seq_starts, qual_starts, seq_lengths, tally)
    return _count_records(data, seq_starts, qual_starts, seq_lengths, tally,
                          detail.key_order, detail.tracked)


# A base's 2-bit code is (byte >> 1) & 3: A 0, C 1, T 2, G 3, in either case, without a
# lookup. Other letters get some code too; candidate hits are checked against the read
# itself, so an N cannot fake an adapter.
_PREFIX = 8
_STRIDE = 4


def _prefix_table() -> np.ndarray:
    table = np.zeros(1 << (2 * _PREFIX), dtype=bool)
    for _name, sequence in ADAPTERS:
        for shift in range(_STRIDE):
            code = 0
            for letter in sequence[shift : shift + _PREFIX]:
                code = ((code << 2) | ((letter >> 1) & 3)) & 0xFFFF
            table[code] = True
    return table


_ADAPTER_PREFIXES = _prefix_table()
_ADAPTER_MATRIX = np.array([np.frombuffer(sequence, np.uint8) for _n, sequence in ADAPTERS])


def _count_adapters(data: np.ndarray, found_reads: np.ndarray, found_at: np.ndarray,
                    starts: np.ndarray, lengths: np.ndarray, tally: Tally) -> None:
    """FastQC's adapter search from the reads whose 8-mer at offset ``found_at`` is an
    adapter's 8-mer at its offset 0 to _STRIDE - 1: keep the adapter starts that fit and
    hold the whole adapter (upper-cased, as FastQC reads), and count, per adapter, each
    read's first occurrence by its offset."""
    reads = np.repeat(found_reads, _STRIDE)
    offsets = np.repeat(found_at, _STRIDE) - np.tile(np.arange(_STRIDE), found_at.size)
    fits = (offsets >= 0) & (lengths[reads] >= offsets + ADAPTER_LENGTH)
    reads, offsets = reads[fits], offsets[fits]
    if reads.size == 0:
        return
    window = data.take(starts[reads][:, None] + offsets[:, None]
                       + np.arange(ADAPTER_LENGTH))
    window = np.where((window >= _LOWER_A) & (window <= _LOWER_Z), window - 32, window)
    for adapter, sequence in enumerate(_ADAPTER_MATRIX):
        found = np.all(window == sequence, axis=1)
        if not found.any():
            continue
        # Lowest offset per read: sort by (read, offset) and keep each read's first.
        order = np.lexsort((offsets[found], reads[found]))
        found_reads, found_offsets = reads[found][order], offsets[found][order]
        first = np.r_[True, found_reads[1:] != found_reads[:-1]]
        tally.add_adapter_hits(adapter, np.bincount(found_offsets[first]))


# Positions are counted in blocks of this many: each read's block of qualities (and of
# bases) is copied with one fancy-indexing gather of a 32-byte item, the fastest width
# numpy copies (it has a fixed-size copy for it; 40 or 64 bytes go through a generic,
# several times slower loop).
_BLOCK = 32
# (byte & _GC_MASK) == _GC_BITS exactly for G, C, g and c.
_GC_MASK = 0xDB
_GC_BITS = 0x43


def _items(data: np.ndarray) -> np.ndarray:
    """``data`` seen as overlapping 32-byte items: item ``i`` is ``data[i : i + 32]`` (a
    view, no copy)."""
    if data.size < _BLOCK:
        data = np.concatenate([data, np.zeros(_BLOCK - data.size, dtype=np.uint8)])
    return np.ndarray((data.size - _BLOCK + 1,), dtype=f"V{_BLOCK}", buffer=data,
                      strides=(1,))


def _gather(data: np.ndarray, items: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The 32 bytes from each of ``starts`` (those past the end of ``data`` as 0): a
    (starts x 32) matrix."""
    last = items.size - 1
    if starts.size == 0 or int(starts.max()) <= last:  # all but a chunk's last bytes
        whole: np.ndarray = items[starts].view(np.uint8).reshape(starts.size, _BLOCK)
        return whole
    block: np.ndarray = items[np.minimum(starts, last)].view(np.uint8).reshape(starts.size, _BLOCK)
    for row in np.flatnonzero(starts > last).tolist():  # the chunk's last bytes
        tail = data[int(starts[row]) :]
        block[row, : tail.size] = tail
        block[row, tail.size :] = 0
    return block


def gather_rows(data: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes from each of ``starts`` (those past the end of ``data`` as 0): a
    (starts x width) matrix, copied 32 bytes at a time. For the widths of read names and
    short reads this is much cheaper than ``take`` with a matrix of every byte's offset;
    the bytes past each row's own end are whatever follows it in ``data``."""
    items = _items(data)
    blocks = [_gather(data, items, starts + column) for column in range(0, width, _BLOCK)]
    rows = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=1)
    return rows[:, :width]


def _blank_rows(block: np.ndarray, first: int, limits: np.ndarray) -> None:
    """Set the bytes of the (read x position) ``block`` at or past each read's limit (a
    position in the block) to 0, for the reads ``first:`` (``limits`` holds theirs, in
    decreasing order); a NUL was refused before, so 0 means "no byte". Reads with the same
    limit are neighbours, so each run of them is one slice."""
    for begin, end, limit in _runs(limits):
        block[first + begin : first + end, limit:] = 0


def _blank_columns(block: np.ndarray, first: int, limits: np.ndarray) -> None:
    """:func:`_blank_rows` for a (position x read) ``block``."""
    for begin, end, limit in _runs(limits):
        block[limit:, first + begin : first + end] = 0


def _runs(limits: np.ndarray) -> list[tuple[int, int, int]]:
    """(begin, end, value) of each run of equal values of ``limits``, clipped at 0."""
    if limits.size == 0:
        return []
    edges = [0, *(np.flatnonzero(limits[1:] != limits[:-1]) + 1).tolist(), limits.size]
    values = limits[edges[:-1]].tolist()
    return [(begin, end, max(value, 0))
            for begin, end, value in zip(edges[:-1], edges[1:], values, strict=True)]


# The overrepresented-sequence keys are at most 75 bytes: each read's key is kept as a
# column of 10 8-byte words (zero-padded), filled from the first three blocks of bases.
_KEY_WORDS = 10
_KEY_BYTES = 8 * _KEY_WORDS
_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_HASH_SHIFT = np.uint64(29)
# Tracked keys' hashes are first looked up in a bitmap of 2**23 bits (1 MiB, 1 % of it
# set by 100,000 keys) indexed by a hash's top bits; only hits are searched for.
_FILTER_BITS = 23
_FILTER_SHIFT = np.uint64(64 - _FILTER_BITS)


def _key_hashes(words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each column of a (10 x keys) uint64 matrix of zero-padded keys.

    It only has to spread keys: a hash match is checked against the key itself."""
    hashes = np.zeros(words.shape[1], dtype=np.uint64)
    spread = np.empty_like(hashes)
    for row in words:
        np.bitwise_xor(hashes, row, out=hashes)
        np.multiply(hashes, _HASH_MULTIPLIER, out=hashes)
        np.right_shift(hashes, _HASH_SHIFT, out=spread)
        np.bitwise_xor(hashes, spread, out=hashes)
    return hashes


class TrackedKeys:
    """The hashes of the overrepresented-sequence keys FastQC tracks, once its dictionary
    is full: from then on only reads with a tracked key change any count, so a chunk turns
    into ``bytes`` only the reads whose key hash is one of these (a hash shared by an
    untracked key costs time, not exactness: the caller looks the keys up)."""

    def __init__(self, keys: Iterable[bytes]) -> None:
        matrix = np.array(list(keys), dtype=f"S{_KEY_BYTES}")
        words = np.zeros((matrix.size, _KEY_WORDS), dtype=np.uint64)
        if matrix.size:
            words[:] = matrix.view(np.uint64).reshape(-1, _KEY_WORDS)
        self.hashes = np.sort(_key_hashes(np.ascontiguousarray(words.T)))
        bits = np.zeros(1 << _FILTER_BITS, dtype=bool)
        bits[(self.hashes >> _FILTER_SHIFT).astype(np.intp)] = True
        self.filter = np.packbits(bits, bitorder="little")

    def candidates(self, hashes: np.ndarray) -> np.ndarray:
        """The indices of the ``hashes`` that are hashes of tracked keys."""
        if self.hashes.size == 0:
            return np.zeros(0, dtype=np.intp)
        slots = (hashes >> _FILTER_SHIFT).astype(np.intp)
        maybe = np.flatnonzero((self.filter[slots >> 3] >> (slots & 7)) & 1)
        wanted = hashes[maybe]
        found = np.minimum(np.searchsorted(self.hashes, wanted), self.hashes.size - 1)
        held: np.ndarray = maybe[self.hashes[found] == wanted]
        return held


# Letters are counted per position by comparing a block with each letter: the matches,
# read as 8-byte words, are summed over groups of 255 words so that none of a word's 8
# byte counters can overflow. A block's reads are padded to a whole number of groups.
_LANE_WORDS = 255
_LANE_READS = 8 * _LANE_WORDS


def _count_records(
    data: np.ndarray,
    seq_starts: np.ndarray,
    qual_starts: np.ndarray,
    lengths: np.ndarray,
    tally: Tally,
    key_order: list[bytes] | None = None,
    tracked: TrackedKeys | None = None,
) -> Counter[bytes]:
    """Count bases, qualities and keys of records whose lines start at the given offsets.

    The work is done 32 positions at a time: each read's 32 qualities (and bases) of the
    block are gathered at once (one 32-byte copy per read) and the block is transposed to
    a (positions x reads) matrix, whose rows are histogrammed and whose columns are summed
    per read. With the reads ordered by decreasing length the reads covering a block are a
    prefix of the order, and only the few that end inside it need their bytes past the end
    blanked. Gathering one position at a time instead touches every cache line of the chunk
    32 times as often and makes 32 times as many gathers. The keys are taken from the
    first three blocks of bases as they go by (no gather of their own); with ``tracked``
    only the reads whose key hash is tracked become ``bytes``.
    """
    reads = lengths.size
    longest = int(lengths.max())
    uniform = int(lengths.min()) == longest
    order: np.ndarray | None = None
    if uniform:
        ordered_lengths = lengths
        seq_index, qual_index = seq_starts, qual_starts
        covering = np.full(longest + _BLOCK, reads, dtype=np.int64)
        covering[longest:] = 0
    else:
        order = np.argsort(-lengths, kind="stable")
        ordered_lengths = lengths[order]
        seq_index, qual_index = seq_starts[order], qual_starts[order]
        # covering[p]: number of reads longer than p (a prefix of the order).
        covering = np.searchsorted(-ordered_lengths, -np.arange(longest + _BLOCK),
                                   side="left")
    gc_lengths = gc_length(ordered_lengths)
    gc_covering = np.searchsorted(-gc_lengths, -np.arange(longest + _BLOCK), side="left")
    items = _items(data)

    counts = np.empty((longest, QUAL_HIGH + 1), dtype=np.int64)
    high = np.zeros(longest, dtype=bool)  # positions with a quality byte above '~'
    # Per position: the reads with each letter FastQC counts, upper then lower case.
    letters = np.empty((longest, _COUNTED.size), dtype=np.int64)
    every_byte = np.zeros(256, dtype=np.int64)
    # int32 sums are enough below ~17 Mbp per read and halve the memory traffic.
    sums: np.ndarray[Any, np.dtype[np.signedinteger[Any]]] = np.zeros(
        reads, dtype=np.int32 if longest < 10_000_000 else np.int64)
    gc_sums = np.zeros(reads, dtype=np.int64)
    # Each read's key bytes (in the length order), zero-padded: one column per read.
    key_words = np.zeros((_KEY_WORDS, reads), dtype=np.uint64)
    # A block of bases, transposed, with its reads padded to whole groups of 8 x 255.
    padded = -(-reads // _LANE_READS) * _LANE_READS
    bases = np.empty((_BLOCK, padded), dtype=np.uint8)
    matches = np.empty((_BLOCK, padded), dtype=bool)
    # Adapter search: every 4-base group's 2-bit codes packed in a byte; two neighbouring
    # groups are the 8-mer at a multiple of 4, looked up in a 64 KiB table of the 8-mers
    # an adapter holds at its offsets 0 to _STRIDE - 1 (every occurrence holds one).
    found_reads: list[np.ndarray] = []
    found_at: list[np.ndarray] = []
    previous_group = np.zeros(0, dtype=np.uint8)
    for start in range(0, longest, _BLOCK):
        width = min(_BLOCK, longest - start)
        cover = int(covering[start])
        full = int(covering[start + _BLOCK - 1])
        limits = ordered_lengths[full:cover] - start

        gathered = _gather(data, items, qual_index[:cover] + start)
        _blank_rows(gathered, full, limits)
        block = np.ascontiguousarray(gathered.T)
        for row in range(width):
            histogram = np.bincount(block[row], minlength=QUAL_HIGH + 1)
            if histogram.size > QUAL_HIGH + 1:
                high[start + row] = True
                histogram = histogram[: QUAL_HIGH + 1]
            counts[start + row] = histogram
        sums[:cover] += block.sum(axis=0, dtype=np.uint16)  # 32 x 255 fits

        gathered = _gather(data, items, seq_index[:cover] + start)
        _blank_rows(gathered, full, limits)
        if start < _KEY_BYTES:
            word = start // 8
            key_words[word : word + _BLOCK // 8, :cover] = gathered.view(np.uint64).T[
                : _KEY_WORDS - word]
        span = -(-cover // _LANE_READS) * _LANE_READS
        lanes = bases[:, :span]
        np.copyto(lanes[:, :cover], gathered.T)
        lanes[:, cover:] = 0
        block = lanes[:, :cover]
        if int(lanes.max()) < _LOWER_A:
            # Upper case only (the usual case): count the five letters by comparison,
            # several times faster than a histogram of every byte value.
            found = matches[:, :span]
            for column, letter in enumerate(POSITION_LETTERS):
                np.equal(lanes, letter, out=found)
                per_group = np.add.reduce(
                    found.view(np.uint64).reshape(_BLOCK, -1, _LANE_WORDS), axis=2)
                letters[start : start + width, column] = per_group.view(np.uint8).reshape(
                    _BLOCK, -1).sum(axis=1)[:width]
            letters[start : start + width, len(POSITION_LETTERS):] = 0
        else:
            histograms = np.empty((width, 256), dtype=np.int64)
            for row in range(width):
                histograms[row] = np.bincount(block[row], minlength=256)
            letters[start : start + width] = histograms[:, _COUNTED]
            every_byte += histograms.sum(axis=0)

        gc_cover = int(gc_covering[start])
        if gc_cover:
            gc_full = min(int(gc_covering[start + _BLOCK - 1]), gc_cover)
            flags = (block[:, :gc_cover] & _GC_MASK) == _GC_BITS
            _blank_columns(flags, gc_full, gc_lengths[gc_full:gc_cover] - start)
            gc_sums[:gc_cover] += flags.sum(axis=0, dtype=np.uint8)  # at most 32

        # Each base's 2-bit code is (byte >> 1) & 3; four of them packed in a byte.
        groups = ((block[0::4] & 6) << 5) | ((block[1::4] & 6) << 3) \
            | ((block[2::4] & 6) << 1) | ((block[3::4] & 6) >> 1)
        kmers = (groups[:-1].astype(np.uint16) << 8) | groups[1:]
        hits = np.flatnonzero(_ADAPTER_PREFIXES.take(kmers))
        if hits.size:
            columns, rows = np.divmod(hits, cover)
            found_reads.append(rows)
            found_at.append(columns * _STRIDE + start)
        if previous_group.size:  # the 8-mer across the block boundary
            kmers = (previous_group[:cover].astype(np.uint16) << 8) | groups[0]
            rows = np.flatnonzero(_ADAPTER_PREFIXES.take(kmers))
            if rows.size:
                found_reads.append(rows)
                found_at.append(np.full(rows.size, start - _STRIDE, dtype=np.int64))
        previous_group = groups[-1]

    _check_quality(data, counts, high, qual_index, covering, order)
    tally.add_quality(counts[:, QUAL_LOW : QUAL_HIGH + 1])
    if found_reads:
        _count_adapters(data, np.concatenate(found_reads), np.concatenate(found_at),
                        seq_index, ordered_lengths, tally)
    nonempty = ordered_lengths > 0
    _add_gc(gc_lengths, gc_sums, tally)
    means = sums[nonempty] // ordered_lengths[nonempty]
    tally.mean_quality += np.bincount(means, minlength=128)[:128]
    tally.bases += _letter_totals(letters, every_byte)
    # Case folded: FastQC upper-cases reads.
    tally.add_position_bases(letters[:, :len(POSITION_LETTERS)]
                             + letters[:, len(POSITION_LETTERS):])
    return _keys(key_words, covering, order, tally, key_order, tracked)


def _keys(key_words: np.ndarray, covering: np.ndarray, order: np.ndarray | None,
          tally: Tally, key_order: list[bytes] | None,
          tracked: TrackedKeys | None) -> Counter[bytes]:
    """The reads' keys (``key_words``: one column per read, in length order, its first 80
    bases), counted in file order: the first 50 bases of reads over 75 bp, shorter reads
    whole, upper-cased.

    With ``tracked`` only the keys whose hash is tracked are counted (in no particular
    order); else every key, in first-seen order, also appended read by read to
    ``key_order`` when it is a list.
    """
    # Reads longer than 75 bases (a prefix of the length order) keep 50.
    long_keys = int(covering[OVERREPRESENTED_LONG_READ]) \
        if covering.size > OVERREPRESENTED_LONG_READ else 0
    _cut_and_fold(key_words, slice(0, long_keys), bool(tally.bases[_LOWERCASE_FLAG]))
    if tracked is not None:
        candidates = tracked.candidates(_key_hashes(key_words))
        rows = np.ascontiguousarray(key_words[:, candidates].T)
        return Counter(rows.view(f"S{_KEY_BYTES}").reshape(-1).tolist())
    if order is not None:
        in_file_order = np.empty_like(key_words)
        in_file_order[:, order] = key_words
        key_words = in_file_order
    rows = np.ascontiguousarray(key_words.T)
    ordered = rows.view(f"S{_KEY_BYTES}").reshape(-1).tolist()
    if key_order is not None:
        key_order.extend(ordered)
    return Counter(ordered)


def _cut_and_fold(key_words: np.ndarray, long_reads: slice | np.ndarray,
                  lowercase: bool) -> None:
    """Cut the keys of ``long_reads`` (columns of ``key_words``) to 50 bases and, if the
    reads may hold ``lowercase`` letters, upper-case them, as FastQC does."""
    key_bytes = key_words.view(np.uint8).reshape(_KEY_WORDS, -1, 8)
    cut_word, cut_byte = divmod(OVERREPRESENTED_PREFIX, 8)
    key_bytes[cut_word, long_reads, cut_byte:] = 0
    key_words[cut_word + 1 :, long_reads] = 0
    if lowercase:
        lower = (key_bytes >= _LOWER_A) & (key_bytes <= _LOWER_Z)
        if lower.any():
            key_bytes[lower] -= 32


def chunk_keys(data: np.ndarray) -> list[bytes]:
    """Every read's overrepresented-sequence key, in file order, of a chunk that
    :func:`count_chunk` counted without error: what its ``key_order`` gets, without
    counting anything (the engine needs it for the chunk that fills FastQC's dictionary).
    """
    if data.size == 0:
        return []
    if data[-1] != _NEWLINE:
        data = np.concatenate([data, np.array([_NEWLINE], dtype=np.uint8)])
    newlines = np.flatnonzero(data == _NEWLINE)
    seq_starts = newlines[0::4] + 1
    lengths = newlines[1::4] - seq_starts
    items = _items(data)
    key_words = np.zeros((_KEY_WORDS, lengths.size), dtype=np.uint64)
    positions = np.arange(_BLOCK)
    for start in range(0, min(int(lengths.max()), _KEY_BYTES), _BLOCK):
        gathered = _gather(data, items, seq_starts + start)
        gathered[positions >= (lengths - start)[:, None]] = 0
        word = start // 8
        key_words[word : word + _BLOCK // 8] = gathered.view(np.uint64).T[: _KEY_WORDS - word]
    _cut_and_fold(key_words, lengths > OVERREPRESENTED_LONG_READ, True)
    keys: list[bytes] = np.ascontiguousarray(key_words.T).view(
        f"S{_KEY_BYTES}").reshape(-1).tolist()
    return keys


def _check_quality(data: np.ndarray, counts: np.ndarray, high: np.ndarray,
                   qual_index: np.ndarray, covering: np.ndarray,
                   order: np.ndarray | None) -> None:
    """Raise :class:`ChunkError` for the first quality character outside '!'..'~': the
    first position holding one above '~' (``high``), else the first holding one below '!'
    (0 in ``counts`` is a blanked byte, not a character)."""
    low = counts[:, 1:QUAL_LOW].any(axis=1)
    if not (high.any() or low.any()):
        return
    position = int(np.flatnonzero(high if high.any() else low)[0])
    row = data.take(qual_index[: int(covering[position])] + position)
    _bad_quality(row, np.bincount(row), order, position)


def _bad_quality(
    row: np.ndarray, counts: np.ndarray, order: np.ndarray | None, position: int
) -> None:
    bad_value = int(np.flatnonzero(counts)[0]) if counts[:QUAL_LOW].any() else counts.size - 1
    if counts.size > QUAL_HIGH + 1:
        bad_value = counts.size - 1
    index = int(np.flatnonzero(row == bad_value)[0])
    record = index if order is None else int(order[index])
    raise ChunkError(
        record,
        f"record {{record}} has a quality character with byte value {bad_value} at "
        f"position {position + 1}: FASTQ quality characters must lie between '!' (33) "
        "and '~' (126)",
    )


def _add_gc(gc_lengths: np.ndarray, sums: np.ndarray, tally: Tally) -> None:
    """Add the reads' (GC length, G+C count) pairs to ``tally`` (``gc_lengths`` from
    :func:`gc_length`, ``sums`` the G+C count within it)."""
    nonempty = gc_lengths > 0
    gc_lengths, sums = gc_lengths[nonempty], sums[nonempty]
    if gc_lengths.size == 0:
        return
    # One key per (length, count): a histogram when it is small, else a sort.
    width = int(gc_lengths.max()) + 1
    keys = gc_lengths.astype(np.int64) * width + sums
    low = int(keys.min())
    if int(keys.max()) - low < 1_000_000:
        histogram = np.bincount(keys - low)
        found = np.flatnonzero(histogram)
        values, counts = found + low, histogram[found]
    else:
        values, counts = np.unique(keys, return_counts=True)
    # Python ints by tolist() (one C loop each), not int() per value.
    pairs = zip((values // width).tolist(), (values % width).tolist(), strict=True)
    tally.gc_reads.update(dict(zip(pairs, counts.tolist(), strict=True)))


def gc_length(lengths: np.ndarray) -> np.ndarray:
    """The part of each read FastQC's per-sequence GC module reads (so few GC models are
    needed): reads over 1,000 bases are cut to a multiple of 1,000, reads over 100 bases to
    a multiple of 100."""
    return np.where(lengths > 1000, lengths // 1000 * 1000,
                    np.where(lengths > 100, lengths // 100 * 100, lengths))


# The byte values counted at each position: POSITION_LETTERS, then their lower case.
_COUNTED = np.frombuffer(POSITION_LETTERS + POSITION_LETTERS.lower(), dtype=np.uint8).astype(
    np.intp)


def _letter_totals(letters: np.ndarray, every_byte: np.ndarray) -> np.ndarray:
    """Counts of the bytes FastQC's GC content and key folding need (others stay 0), from
    the per-position counts; slot 0 flags lowercase letters (keys must be upper-cased)."""
    counts = np.zeros(256, dtype=np.int64)
    counts[_COUNTED] = letters.sum(axis=0)
    if every_byte[_LOWER_A:].any():
        counts[_LOWERCASE_FLAG] = 1
    return counts


_LOWER_A = ord("a")
_LOWER_Z = ord("z")
# Slot of Tally.bases (byte value 0 cannot be a base) set when lowercase was seen.
_LOWERCASE_FLAG = 0
