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
from dataclasses import dataclass, field

import numpy as np

from .fastqc_rules import OVERREPRESENTED_LONG_READ, OVERREPRESENTED_PREFIX
from .report import QCError

# Quality characters FastQC accepts: '!' (33) to '~' (126).
QUAL_LOW = 33
QUAL_HIGH = 126
QUAL_WIDTH = QUAL_HIGH - QUAL_LOW + 1

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

    def add_lengths(self, counts: np.ndarray) -> None:
        self.lengths = _grow(self.lengths, counts.shape[0])
        self.lengths[: counts.shape[0]] += counts

    def add_quality(self, counts: np.ndarray) -> None:
        self.quality = _grow(self.quality, counts.shape[0])
        self.quality[: counts.shape[0]] += counts

    def merge(self, other: Tally) -> None:
        """Add another tally (e.g. a worker process's) to this one."""
        self.reads += other.reads
        self.add_lengths(other.lengths)
        self.bases += other.bases
        self.add_quality(other.quality)
        self.mean_quality += other.mean_quality


def _grow(array: np.ndarray, rows: int) -> np.ndarray:
    if array.shape[0] >= rows:
        return array
    grown = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown


def count_chunk(data: np.ndarray, tally: Tally) -> Counter[bytes]:
    """Count one chunk of complete FASTQ records into ``tally``.

    Returns the overrepresented-sequence keys of the chunk (upper-cased reads, cut to
    50 bases when longer than 75) with their counts, in first-seen order, so that the
    caller can apply FastQC's "first 100,000 distinct sequences" rule in file order.
    Raises :class:`IrregularChunk` or :class:`ChunkError`.
    """
    if data.size == 0:
        return Counter()
    if data[-1] != _NEWLINE:
        # Only the last chunk of a file can lack the final line end.
        data = np.concatenate([data, np.array([_NEWLINE], dtype=np.uint8)])
    newlines = np.flatnonzero(data == _NEWLINE)
    if newlines.size % 4:
        raise IrregularChunk("line count is not a multiple of four")
    starts = np.empty_like(newlines)
    starts[0] = 0
    starts[1:] = newlines[:-1] + 1
    header_starts = starts[0::4]
    if not (np.all(data[header_starts] == _AT) and np.all(data[starts[2::4]] == _PLUS)):
        raise IrregularChunk("records are not aligned on 4-line boundaries")
    ends_nonempty = newlines[newlines > starts]
    if np.any(data[ends_nonempty - 1] == _CR):
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

    reads = seq_starts.size
    longest = int(seq_lengths.max())
    tally.reads += reads
    tally.add_lengths(np.bincount(seq_lengths))
    if longest == 0:
        return Counter({b"": reads})
    if int(seq_lengths.min()) == longest:
        return _count_uniform(data, seq_starts, qual_starts, longest, tally)
    return _count_mixed(data, seq_starts, qual_starts, seq_lengths, tally)


def _check_quality(quals: np.ndarray, lengths: np.ndarray | None = None) -> None:
    low, high = int(quals.min()), int(quals.max())
    if low >= QUAL_LOW and high <= QUAL_HIGH:
        return
    bad_value = low if low < QUAL_LOW else high
    flat_index = int(np.flatnonzero(quals.reshape(-1) == bad_value)[0])
    if lengths is None:
        record = flat_index // quals.shape[1]
    else:
        record = int(np.searchsorted(np.cumsum(lengths), flat_index, side="right"))
    raise ChunkError(
        record,
        f"record {{record}} has a quality character with byte value {bad_value}: FASTQ "
        "quality characters must lie between '!' (33) and '~' (126)",
    )


def _count_uniform(
    data: np.ndarray,
    seq_starts: np.ndarray,
    qual_starts: np.ndarray,
    length: int,
    tally: Tally,
) -> Counter[bytes]:
    """All reads of the chunk have the same length: work on (reads x length) matrices."""
    columns = np.arange(length)
    quals = data[qual_starts[:, None] + columns]
    _check_quality(quals)
    by_position = np.ascontiguousarray(quals.T)
    hist = np.empty((length, QUAL_WIDTH), dtype=np.int64)
    for position in range(length):
        hist[position] = np.bincount(by_position[position], minlength=QUAL_HIGH + 1)[QUAL_LOW:]
    tally.add_quality(hist)
    sums = quals.sum(axis=1, dtype=np.int64)
    tally.mean_quality += np.bincount(sums // length, minlength=128)[:128]

    seqs = data[seq_starts[:, None] + columns]
    tally.bases += _byte_counts(seqs)
    width = OVERREPRESENTED_PREFIX if length > OVERREPRESENTED_LONG_READ else length
    keys = np.ascontiguousarray(seqs[:, :width])
    return _key_counter(keys, tally)


def _count_mixed(
    data: np.ndarray,
    seq_starts: np.ndarray,
    qual_starts: np.ndarray,
    lengths: np.ndarray,
    tally: Tally,
) -> Counter[bytes]:
    """Reads of different lengths: work on the concatenated bases / qualities."""
    total = int(lengths.sum())
    offsets = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    flat = np.arange(total, dtype=np.int64)
    qual_index = flat + np.repeat(qual_starts - offsets, lengths)
    quals = data[qual_index]
    _check_quality(quals, lengths)
    position = flat - np.repeat(offsets, lengths)
    cells = position * QUAL_WIDTH + (quals.astype(np.int64) - QUAL_LOW)
    longest = int(lengths.max())
    hist = np.bincount(cells, minlength=longest * QUAL_WIDTH).reshape(longest, QUAL_WIDTH)
    tally.add_quality(hist)

    nonempty = lengths > 0
    sums = np.add.reduceat(quals, offsets[nonempty], dtype=np.int64)
    tally.mean_quality += np.bincount(sums // lengths[nonempty], minlength=128)[:128]

    seqs = data[qual_index - np.repeat(qual_starts - seq_starts, lengths)]
    tally.bases += _byte_counts(seqs)

    key_lengths = np.where(lengths > OVERREPRESENTED_LONG_READ, OVERREPRESENTED_PREFIX, lengths)
    width = int(key_lengths.max())
    columns = np.arange(width)
    index = np.minimum(seq_starts[:, None] + columns, data.size - 1)
    keys = data[index]
    keys[columns >= key_lengths[:, None]] = 0
    return _key_counter(keys, tally)


def _byte_counts(values: np.ndarray) -> np.ndarray:
    return np.bincount(values.reshape(-1), minlength=256)[:256].astype(np.int64)


_LOWER_A = ord("a")
_LOWER_Z = ord("z")


def _key_counter(keys: np.ndarray, tally: Tally) -> Counter[bytes]:
    """Count the rows of a (reads x width) key matrix as bytes, in first-seen order.

    FastQC upper-cases reads, so lowercase letters are folded first (only when the
    chunk has any, which the base counts tell). Zero bytes pad shorter keys; numpy's
    fixed-width bytes type drops them when converting to Python bytes.
    """
    if tally.bases[_LOWER_A : _LOWER_Z + 1].any():
        lower = (keys >= _LOWER_A) & (keys <= _LOWER_Z)
        if lower.any():
            keys = keys.copy()
            keys[lower] -= 32
    width = keys.shape[1]
    return Counter(keys.view(f"S{width}").reshape(-1).tolist())
