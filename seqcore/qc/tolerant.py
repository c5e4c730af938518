"""Line-by-line FASTQ reading with FastQC's tolerance, for files the fast path rejects.

The fast path (:mod:`seqcore.qc.counting`) only accepts plain 4-line, LF-terminated
records. FastQC reads line by line and is more lenient: it skips blank lines between
records, accepts CR, CRLF and LF line ends (Java's ``readLine``), and decodes SOLiD
colorspace reads. This module re-reads such files the same way and hands the records on
as normalised 4-line chunks to the same counting code, so the numbers stay FastQC's.
It is slower (a Python loop per line), which is fine for the rare files that need it.

It is also where unreadable input gets its precise error message: the line number and
what FastQC itself would have complained about.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import BinaryIO

from .report import QCError

_COLORSPACE = re.compile(r"^[GATCNgatcn][.0123456]+$")
_BASE_CODE = {"A": 0, "C": 1, "G": 2, "T": 3}
_CODE_BASE = "ACGT"


def is_colorspace(first_sequence: str) -> bool:
    """FastQC's test on the first read: a base followed by colour digits or dots."""
    return _COLORSPACE.match(first_sequence) is not None


def decode_colorspace(reads: str, record: int) -> str:
    """Translate a colorspace read (primer base + colours) to bases as FastQC does.

    Each colour 0-3 is the XOR of the 2-bit codes (A=0, C=1, G=2, T=3) of two adjacent
    bases; '.', 4, 5 and 6 turn the rest of the read into N. The result is one base
    shorter than the input, because the primer base is dropped.
    """
    reads = reads.upper()
    if not reads:
        return ""
    bases: list[str] = []
    previous = reads[0]
    for colour in reads[1:]:
        if previous not in _BASE_CODE:
            raise QCError(
                f"colorspace read of record {record} does not start with a base "
                f"(found {previous!r})"
            )
        if colour in "0123":
            previous = _CODE_BASE[_BASE_CODE[previous] ^ int(colour)]
            bases.append(previous)
        elif colour in ".456":
            bases.append("N" * (len(reads) - 1 - len(bases)))
            break
        else:
            raise QCError(f"unexpected colour {colour!r} in colorspace record {record}")
    return "".join(bases)


def iter_records(stream: BinaryIO) -> Iterator[tuple[bytes, bytes, bytes, bool]]:
    """Yield ``(header, sequence, quality, colorspace)`` per record, the way FastQC reads
    them (the header with its ``@``).

    Sequences are upper-cased (and decoded from colorspace when the first read is
    colorspace). Raises :class:`QCError` where FastQC would stop with an error.
    """
    text = io.TextIOWrapper(stream, encoding="latin-1", newline=None)
    line_number = 0
    colorspace: bool | None = None
    record = 0

    def next_line() -> str | None:
        nonlocal line_number
        line = text.readline()
        if not line:
            return None
        line_number += 1
        return line[:-1] if line.endswith("\n") else line

    while True:
        header = next_line()
        while header is not None and header == "":
            header = next_line()
        if header is None:
            return
        record += 1
        if not header.startswith("@"):
            what = "record" if record > 1 else "file"
            raise QCError(
                f"not a FASTQ {what}: line {line_number} should be a header starting "
                f"with '@' but starts with {header[:20]!r}"
            )
        sequence = next_line()
        midline = next_line() if sequence is not None else None
        if midline is not None and not midline.startswith("+"):
            raise QCError(
                f"line {line_number} of record {record} should be the '+' separator line "
                f"but is {midline[:20]!r} (multi-line FASTQ records are not supported)"
            )
        quality = next_line() if midline is not None else None
        if sequence is None or quality is None:
            raise QCError(
                f"the file ends in the middle of record {record} (line {line_number}): "
                "it is probably truncated"
            )
        if colorspace is None:
            colorspace = is_colorspace(sequence)
        bases = decode_colorspace(sequence, record) if colorspace else sequence.upper()
        yield (header.encode("latin-1"), bases.encode("latin-1"), quality.encode("latin-1"),
               colorspace)


def normalised_chunks(
    stream: BinaryIO, chunk_size: int = 4 * 1024 * 1024
) -> Iterator[tuple[bytes, int, bool]]:
    """Re-emit the records as plain 4-line FASTQ chunks for :func:`count_chunk`.

    Yields ``(chunk, first_record_number, colorspace)``. The chunks are strictly regular;
    headers are kept (per-tile quality reads the tile from them).
    """
    parts: list[bytes] = []
    size = 0
    first = 1
    count = 0
    colorspace = False
    for header, sequence, quality, colorspace in iter_records(stream):
        if len(sequence) != len(quality):
            raise QCError(
                f"record {first + count} has a sequence of {len(sequence)} bases but "
                f"{len(quality)} quality characters"
            )
        parts.append(header + b"\n" + sequence + b"\n+\n" + quality + b"\n")
        size += len(parts[-1])
        count += 1
        if size >= chunk_size:
            yield b"".join(parts), first, colorspace
            parts, size, first, count = [], 0, first + count, 0
    if parts:
        yield b"".join(parts), first, colorspace
