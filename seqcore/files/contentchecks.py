"""Checks of uploaded content, run on the bytes as they stream in.

A FASTQ or FASTA upload must look like one from its first record on; gzip-compressed
uploads are decompressed as they arrive (ISA-L, releasing the GIL), so a truncated or corrupt
gzip stream is refused before anything is kept. The worker's QC reads every record later.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from isal import isal_zlib

from seqcore.files.uploads import BadContent

if TYPE_CHECKING:
    from seqcore.storage.service import Writer

GZIP_MAGIC = b"\x1f\x8b"
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
SNIFF = 64 * 1024
# The first bytes of a followed gzip upload are inflated as they arrive, without a thread:
# starting and joining one costs more than inflating a small upload whole (most uploads of
# a busy server's mix are a few kilobytes).
INLINE = 1024 * 1024


def verify_gzip(settings: Mapping[str, Any], content_length: int | None) -> bool:
    """Whether gzip in an upload of ``content_length`` bytes is inflated completely on
    arrival (``seqcore.upload.verify_gzip``, up to ``seqcore.upload.verify_gzip_max_bytes``).

    Inflating runs at about a tenth of the speed of receiving, hashing and writing, so for
    large uploads it would set the pace of the whole upload. Above the limit only the first
    records are checked on arrival; the processing worker reads every byte of the file
    (QC) and marks a corrupt one ``ERROR`` with the reason.
    """
    if not settings["seqcore.upload.verify_gzip"]:
        return False
    limit = int(settings["seqcore.upload.verify_gzip_max_bytes"])
    return limit <= 0 or content_length is None or content_length <= limit


class _Decompressing:
    """Follows a possibly-gzipped stream, keeping its first decompressed bytes.

    Inflating every byte is what makes a corrupt upload detectable before it is kept, and it
    is the costliest part of an upload. When the upload layer lets the check :meth:`follow`
    the file being written, the inflating runs in a thread of its own that reads the file
    as the storage writer reports it grown (ISA-L releases the GIL): it overlaps with
    receiving, hashing and writing, and with the check of the other file of a pair, and its
    memory stays flat because the bytes come back from the file rather than a queue. The
    first :data:`INLINE` bytes are inflated as they arrive, so a small upload starts no thread.
    """

    def __init__(self, verify_gzip: bool = True) -> None:
        self.verify_gzip = verify_gzip
        self.head = bytearray()
        self.raw_head = bytearray()
        self.total = 0
        self.gzip: bool | None = None
        self._inflater: isal_zlib.Decompress | None = None
        self._members = 0
        self._path: Path | None = None
        self._written = 0
        self._inline = 0  # the bytes inflated as they arrived, before the thread follows
        self._done = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._error: BadContent | None = None
        self._stop = False

    def follow(self, writer: Writer) -> None:
        """Verify by reading the file ``writer`` writes, as it grows, instead of inline."""
        if self.verify_gzip:
            self._path = writer.tmp_path
            writer.on_written(self._on_written)

    def _on_written(self, size: int) -> None:
        with self._cond:
            self._written = size
            self._cond.notify()

    def feed(self, data: bytes | memoryview) -> None:
        self.total += len(data)
        if self.gzip is None:
            self.raw_head += data[: max(0, 2 - len(self.raw_head))]
            if len(self.raw_head) < 2:
                return
            self.gzip = bytes(self.raw_head[:2]) == GZIP_MAGIC
            if self.gzip:
                self._inflater = isal_zlib.decompressobj(31)
                self._members = 1
        if not self.gzip:
            if len(self.head) < SNIFF:
                self.head += data[: SNIFF - len(self.head)]
            return
        if self._error is not None:
            raise self._error
        if not self.verify_gzip:
            if len(self.head) < SNIFF:
                self._inflate(bytes(data))
            return
        if self._path is None:
            self._inflate(bytes(data))
            return
        if self._thread is None and self.total <= INLINE:
            self._inflate(bytes(data))
            self._inline = self.total
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._follow, name="gzip-check",
                                            daemon=True)
            self._thread.start()

    def _follow(self) -> None:
        assert self._path is not None
        position = self._inline
        with open(self._path, "rb") as fh:
            fh.seek(position)
            while True:
                with self._cond:
                    while self._written <= position and not self._done and not self._stop:
                        self._cond.wait()
                    if self._stop:
                        return
                    available = self._written - position
                    if available <= 0 and self._done:
                        return
                while available > 0:
                    block = fh.read(min(available, 1 << 20))
                    if not block:
                        break
                    position += len(block)
                    available -= len(block)
                    if self._error is None:
                        try:
                            self._inflate(block)
                        except BadContent as err:
                            self._error = err
                            return

    def close(self) -> None:
        """Stop the checking thread (a failed upload); never raises."""
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _join(self) -> None:
        if self._thread is not None:
            with self._cond:
                self._done = True
                self._cond.notify()
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error

    def _inflate(self, data: bytes) -> None:
        while data:
            inflater = self._inflater
            if inflater is None:  # set as soon as the first bytes show gzip
                raise RuntimeError("gzip data came before the gzip stream was started")
            try:
                out = inflater.decompress(data)
            # isal's stub declares ``error`` an instance of Exception, not the class it is.
            except isal_zlib.error as err:  # type: ignore[misc]
                raise BadContent(f"the gzip data is corrupt ({err}).") from None
            if len(self.head) < SNIFF:
                self.head += out[: SNIFF - len(self.head)]
            data = b""
            del out
            if inflater.eof:
                rest = inflater.unused_data
                if rest:  # another gzip member follows (bgzip, concatenated files)
                    if rest[:2] != GZIP_MAGIC[: len(rest[:2])]:
                        raise BadContent("unexpected data after the end of the gzip stream.")
                    self._inflater = isal_zlib.decompressobj(31)
                    self._members += 1
                    data = rest

    def finish(self) -> None:
        self._join()
        if self.total == 0:
            raise BadContent("the file is empty.")
        if self.gzip is None:  # a single byte
            self.head += self.raw_head
        if self.gzip and self.verify_gzip and (self._inflater is None
                                               or not self._inflater.eof):
            raise BadContent("the gzip data is truncated or corrupt (the stream does not end "
                             "properly).")


class FastqCheck(_Decompressing):
    """Every complete record among the first (decompressed) 64 KiB must be a FASTQ record:
    ``@id``, at least one base, ``+``, qualities of equal length, and no NUL byte (plain or
    gzip-compressed). The worker's QC reads every record later and marks the object
    ``ERROR`` for the same faults further on (:mod:`seqcore.qc.processing`)."""

    def finish(self) -> None:
        super().finish()
        text = bytes(self.head).replace(b"\r\n", b"\n")
        if not text.startswith(b"@"):
            raise BadContent("this is not FASTQ: it does not start with '@'.")
        lines = text.split(b"\n")
        whole = len(lines) - 1 if len(text) >= SNIFF else len(lines)
        if whole < 4 or (whole == 4 and len(text) >= SNIFF):
            raise BadContent("this is not FASTQ: the first record is incomplete.")
        for start in range(0, whole - 3, 4):
            _check_record(lines[start:start + 4], start // 4 + 1)
        if b"\x00" in text:
            raise BadContent("this is not FASTQ: it holds a NUL byte.")


def _check_record(lines: list[bytes], number: int) -> None:
    """One FASTQ record (four lines); :class:`BadContent` naming the record's number."""
    header, bases, plus, quality = lines
    if not header.startswith(b"@"):
        raise BadContent(f"this is not FASTQ: record {number} does not start with '@'.")
    if not plus.startswith(b"+"):
        raise BadContent(f"this is not FASTQ: the third line of record {number} does not "
                         "start with '+'.")
    if not bases:
        raise BadContent(f"record {number} is empty: it has no bases.")
    if b"\x00" in bases or b"\x00" in quality or b"\x00" in header:
        raise BadContent(f"record {number} holds a NUL byte.")
    if len(bases) != len(quality):
        what = "the first record's" if number == 1 else f"record {number}'s"
        raise BadContent(f"this is not FASTQ: {what} sequence and quality lengths differ.")


class FastaCheck(_Decompressing):
    """The content must start with a FASTA header ``>`` and hold a sequence line."""

    def finish(self) -> None:
        super().finish()
        text = bytes(self.head).lstrip()
        if not text.startswith(b">"):
            raise BadContent("this is not FASTA: it does not start with '>'.")
        lines = [line for line in text.splitlines()[1:] if line.strip()]
        if not lines:
            raise BadContent("this is not FASTA: the first record has no sequence.")


#: The sizes HDF5 allows for file offsets and lengths, in bytes.
HDF5_FIELD_SIZES = (2, 4, 8, 16, 32)


class Fast5Check:
    """FAST5 is HDF5 (``SINGLE``) or a gzip/tar.gz bundle (``ZIPPED``). Anything else is
    refused (IRIDA kept it as ``UNKNOWN``: a FASTQ named ``.fast5`` was stored as FAST5),
    as is an HDF5 signature not followed by a superblock HDF5 can read (its version, the
    sizes of offsets and lengths, and the end-of-file address within the file), the
    check ``h5dump`` makes first."""

    HEAD = 64

    def __init__(self) -> None:
        self.head = bytearray()
        self.total = 0

    def feed(self, data: bytes | memoryview) -> None:
        self.total += len(data)
        if len(self.head) < self.HEAD:
            self.head += data[: self.HEAD - len(self.head)]

    def finish(self) -> None:
        if self.total == 0:
            raise BadContent("the file is empty.")
        if self.fast5_type == "UNKNOWN":
            raise BadContent("this is not FAST5: it is neither HDF5 nor a gzip archive.")
        if self.fast5_type == "SINGLE":
            problem = hdf5_superblock_problem(bytes(self.head), self.total)
            if problem:
                raise BadContent(f"this is not FAST5: {problem}.")

    @property
    def fast5_type(self) -> str:
        head = bytes(self.head)
        if head.startswith(HDF5_MAGIC):
            return "SINGLE"
        if head.startswith(GZIP_MAGIC):
            return "ZIPPED"
        return "UNKNOWN"


def hdf5_superblock_problem(head: bytes, size: int) -> str | None:
    """What is wrong with the HDF5 superblock at the start of ``head`` (a file of ``size``
    bytes), or ``None``. Follows the superblock layout of the HDF5 file format
    specification (versions 0 and 1: sizes at bytes 13 and 14, then the group and
    consistency fields and four addresses, the third the end of file; versions 2 and 3:
    sizes at bytes 9 and 10, flags, then base, extension and end-of-file addresses)."""
    if len(head) < 12:
        return "the HDF5 superblock is truncated"
    version = head[8]
    if version > 3:
        return f"the HDF5 superblock has an unknown version ({version})"
    if version in (0, 1):
        offsets, lengths = head[13:15] if len(head) >= 15 else (0, 0)
        eof_at = 24 + (4 if version == 1 else 0) + 2 * offsets
    else:
        offsets, lengths = head[9], head[10]
        eof_at = 12 + 2 * offsets
    if offsets not in HDF5_FIELD_SIZES or lengths not in HDF5_FIELD_SIZES:
        return "the HDF5 superblock is damaged (impossible sizes of offsets and lengths)"
    if len(head) < eof_at + offsets:
        return None  # addresses wider than the head: the sizes were all that could be read
    end = int.from_bytes(head[eof_at:eof_at + offsets], "little")
    undefined = (1 << (8 * offsets)) - 1
    if end != undefined and end > size:
        return (f"the HDF5 superblock says the file holds {end} bytes, but it holds "
                f"{size}")
    return None
