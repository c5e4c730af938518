"""The bundle writer (``seqcore.exports.bundle``): entries streamed from their sources with
their SHA-256, compressed files stored and text deflated, ZIP64 where sizes need it, and a
source that is not the size storage recorded refused."""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile
from datetime import UTC, datetime

import pytest

from seqcore.exports.bundle import Bundle, Source, compression_for
from seqcore.exports.contents import safe_segment

pytestmark = pytest.mark.database_independent

WHEN = datetime(2026, 11, 26, 12, 30, 5, tzinfo=UTC)


def source(path: str, data: bytes, known: bool = True) -> Source:
    return Source(path, len(data) if known else None, lambda: io.BytesIO(data))


def zip64_extra(info: zipfile.ZipInfo) -> bool:
    """Whether the entry's local or central record carries a ZIP64 extra field (0x0001)."""
    extra = info.extra
    while len(extra) >= 4:
        kind, size = struct.unpack("<HH", extra[:4])
        if kind == 1:
            return True
        extra = extra[4 + size:]
    return False


def test_entries_carry_their_checksums_and_the_right_compression():
    reads = b"\x1f\x8b" + bytes(range(256)) * 50
    fasta = b">contig1\n" + b"ACGT" * 5000 + b"\n"
    target = io.BytesIO()
    with Bundle(target, WHEN) as bundle:
        bundle.add(source("top/a/reads_R1.fastq.gz", reads))
        bundle.add(source("top/b/contigs.fasta", fasta))
        bundle.add_bytes("top/manifest.json", b"{}")
    assert [(w.path, w.size, w.sha256) for w in bundle.written] == [
        ("top/a/reads_R1.fastq.gz", len(reads), hashlib.sha256(reads).hexdigest()),
        ("top/b/contigs.fasta", len(fasta), hashlib.sha256(fasta).hexdigest())]
    with zipfile.ZipFile(io.BytesIO(target.getvalue())) as opened:
        assert opened.testzip() is None
        assert opened.read("top/a/reads_R1.fastq.gz") == reads
        assert opened.read("top/b/contigs.fasta") == fasta
        stored, deflated = opened.getinfo("top/a/reads_R1.fastq.gz"), opened.getinfo(
            "top/b/contigs.fasta")
        assert stored.compress_type == zipfile.ZIP_STORED
        assert deflated.compress_type == zipfile.ZIP_DEFLATED
        assert deflated.compress_size < len(fasta) / 10
        assert stored.date_time == (2026, 11, 26, 12, 30, 4)  # zip times are in 2 s steps
        assert opened.namelist()[-1] == "top/manifest.json"
        assert not zip64_extra(stored)


@pytest.mark.parametrize(("name", "kind"), [
    ("x.fastq.gz", zipfile.ZIP_STORED), ("X.FASTQ.GZ", zipfile.ZIP_STORED),
    ("reads.fast5", zipfile.ZIP_STORED), ("a.bam", zipfile.ZIP_STORED),
    ("r.fq.bz2", zipfile.ZIP_STORED), ("x.fastq", zipfile.ZIP_DEFLATED),
    ("linelist.csv", zipfile.ZIP_DEFLATED), ("contigs.fasta", zipfile.ZIP_DEFLATED)])
def test_compressed_files_are_stored_and_text_deflated(name, kind):
    assert compression_for(name) == kind


def test_large_entries_and_archives_get_zip64_records(monkeypatch):
    """Past the 4 GiB limit (lowered here to 1 KiB: the same code paths, without writing
    gigabytes) entries get ZIP64 extra fields and the archive ZIP64 end records, which
    readers take."""
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1024)
    big = bytes(range(256)) * 20
    target = io.BytesIO()
    with Bundle(target, WHEN) as bundle:
        bundle.add(source("top/big.fastq.gz", big))
        bundle.add(source("top/small.txt", b"small"))
    data = target.getvalue()
    assert b"PK\x06\x06" in data  # the ZIP64 end of central directory record
    monkeypatch.undo()
    with zipfile.ZipFile(io.BytesIO(data)) as opened:
        assert zip64_extra(opened.getinfo("top/big.fastq.gz"))
        assert opened.read("top/big.fastq.gz") == big
        assert opened.read("top/small.txt") == b"small"


def test_an_entry_of_unknown_size_gets_zip64_and_is_read_whole():
    data = b"line\n" * 1000
    target = io.BytesIO()
    with Bundle(target, WHEN) as bundle:
        written = bundle.add(source("top/generated.csv", data, known=False))
    assert written.size == len(data)
    with zipfile.ZipFile(io.BytesIO(target.getvalue())) as opened:
        assert opened.read("top/generated.csv") == data


def test_a_source_not_the_size_storage_recorded_is_refused():
    target = io.BytesIO()
    with Bundle(target, WHEN) as bundle, pytest.raises(OSError, match="storage recorded"):
        bundle.add(Source("top/x.fastq.gz", 10, lambda: io.BytesIO(b"short")))


@pytest.mark.parametrize(("text", "safe"), [
    ("SAL 1/é", "SAL_1"), ("..", "_"), ("../../etc/passwd", "etc_passwd"),
    ("a\x00b", "a_b"), ("reads_R1.fastq.gz", "reads_R1.fastq.gz"), ("", "_")])
def test_path_segments_are_safe_for_every_unzip(text, safe):
    assert safe_segment(text) == safe
