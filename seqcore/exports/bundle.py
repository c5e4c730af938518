"""Writing a bundle: a zip written entry by entry from storage, in constant memory.

Each entry is copied from its source in blocks of :data:`BLOCK` bytes through Python's
``zipfile`` in streaming mode (``ZipFile.open(info, "w")``), hashed (SHA-256 of the entry's
bytes) and counted on the way; nothing holds a whole file. The zip is written to a seekable
file, so ``zipfile`` goes back to each local header for its sizes and CRC (no data
descriptors: every unzip tool reads it). Entries whose size (or, compressed, whose size with
deflate's worst case) passes 4 GiB get ZIP64 records; the archive gets them when it holds
more than 65,535 entries or passes 4 GiB itself.

Already-compressed files (``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.zip``, FAST5/HDF5, BAM,
images) are stored as they are; text (FASTA, plain FASTQ, CSV, JSON) is deflated at zlib's
default level (6), balanced between speed and size.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

#: Bytes read and written at a time.
BLOCK = 1 << 20

#: Suffixes of files already compressed: stored, not deflated again.
COMPRESSED = (".gz", ".bgz", ".bz2", ".xz", ".zst", ".zip", ".7z", ".fast5", ".pod5", ".h5",
              ".bam", ".cram", ".png", ".jpg", ".jpeg", ".gif", ".pdf", ".xlsx")


def compression_for(name: str) -> int:
    """``ZIP_STORED`` for names of already-compressed files, ``ZIP_DEFLATED`` otherwise."""
    return zipfile.ZIP_STORED if name.lower().endswith(COMPRESSED) else zipfile.ZIP_DEFLATED


@dataclass(frozen=True)
class Source:
    """An entry to write: its path in the zip, its size if known, and how to open its
    bytes (a binary file object, read in blocks and closed after)."""

    path: str
    size: int | None
    open: Callable[[], BinaryIO]


@dataclass(frozen=True)
class Written:
    """What the manifest says of an entry."""

    path: str
    size: int
    sha256: str

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


class Bundle:
    """A zip being written to ``target`` (a seekable binary file); use as a context manager
    (the central directory is written on exit)."""

    def __init__(self, target: BinaryIO, when: datetime,
                 progress: Callable[[int], None] | None = None) -> None:
        when = when.replace(tzinfo=None)  # zip times have no zone: seqcore's are UTC
        self.when = max(when, datetime(1980, 1, 1)).timetuple()[:6]
        self.zip = zipfile.ZipFile(target, "w", allowZip64=True)
        self.progress = progress
        self.written: list[Written] = []

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.zip.close()

    def add(self, source: Source) -> Written:
        """Copy one entry in, hashing it; its manifest record."""
        info = zipfile.ZipInfo(source.path, date_time=self.when)
        info.compress_type = compression_for(source.path)
        info.external_attr = 0o644 << 16
        # A known size lets zipfile choose ZIP64 for this entry; an unknown one gets it
        # always (20 bytes more), since its size is learnt only at the end.
        force_zip64 = source.size is None
        if source.size is not None:
            info.file_size = source.size
        digest = hashlib.sha256()
        size = 0
        with source.open() as reader, self.zip.open(info, "w",
                                                    force_zip64=force_zip64) as out:
            while block := reader.read(BLOCK):
                digest.update(block)
                out.write(block)
                size += len(block)
                if self.progress is not None:
                    self.progress(len(block))
        if source.size is not None and size != source.size:
            raise OSError(f"{source.path}: read {size} bytes, storage recorded {source.size}")
        record = Written(source.path, size, digest.hexdigest())
        self.written.append(record)
        return record

    def add_bytes(self, path: str, data: bytes) -> None:
        """A small generated entry (the manifest), not recorded in :attr:`written`."""
        info = zipfile.ZipInfo(path, date_time=self.when)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, data)


def write_all(bundle: Bundle, sources: Iterable[Source]) -> None:
    for source in sources:
        bundle.add(source)
