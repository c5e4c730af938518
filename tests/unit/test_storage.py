"""The storage writer's SHA-256 (hashed in a companion thread for large blocks) is the hash of
exactly the bytes written, whichever way they reach the disk (ordinary writes for small
blocks, direct writes through an aligned buffer for large ones), a full disk is a
StorageError that leaves nothing behind, and a finished writer leaves no thread behind."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest
import transaction

from seqcore.storage.service import Storage, StorageError
from seqcore.testing.uploads import file_size_limit

pytestmark = pytest.mark.database_independent


def _hashing_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name in ("sha256", "storage-write"))


def test_hash_and_bytes_of_mixed_writes(tmp_path):
    storage = Storage(tmp_path)
    blocks = [os.urandom(n) for n in (10, 70_000, 5, 1 << 20, 3, 200_000, 1 << 20)]
    reused = bytearray(300_000)
    writer = storage.writer("reads.fastq")
    expected = hashlib.sha256()
    content = bytearray()
    for block in blocks:
        writer.write(memoryview(block)[1:])
        expected.update(block[1:])
        content += block[1:]
    for fill in (b"a", b"b", b"c"):  # a caller reusing its buffer between writes
        reused[:] = fill * len(reused)
        writer.write(reused)
        expected.update(bytes(reused))
        content += reused
    assert writer.sha256 == expected.hexdigest()
    assert writer.size == len(content)
    manager = transaction.TransactionManager()
    manager.begin()
    relative = writer.place(manager)
    manager.commit()
    assert storage.path(relative).read_bytes() == bytes(content)
    assert _hashing_threads() == 0


def test_discarded_writer_stops_its_thread(tmp_path):
    storage = Storage(tmp_path)
    writer = storage.writer("gone.fastq")
    for _ in range(40):  # more blocks than the hashing queue holds
        writer.write(os.urandom(1 << 20))
    writer.discard()
    assert _hashing_threads() == 0
    assert not writer.tmp_path.exists()


def test_readers_following_the_file_see_only_written_bytes(tmp_path):
    storage = Storage(tmp_path)
    writer = storage.writer("reads.fastq")
    reports = []

    def listener(size: int) -> None:
        # A follower may read this many bytes from the file now.
        assert os.stat(writer.tmp_path).st_size >= size
        reports.append(size)

    writer.on_written(listener)
    content = b"".join(os.urandom(n) for n in (100, 3 << 20, 7, 6 << 20, 4095, 1 << 20))
    for start in range(0, len(content), 700_001):
        writer.write(content[start:start + 700_001])
    writer.close()
    assert reports == sorted(reports)
    assert reports[-1] == writer.written == writer.size == len(content)
    assert writer.tmp_path.read_bytes() == content
    writer.discard()


@pytest.mark.parametrize("block", [1000, 1 << 20])
def test_a_full_disk_is_a_storage_error_and_leaves_nothing(tmp_path, block):
    storage = Storage(tmp_path)
    writer = storage.writer("reads.fastq")
    with file_size_limit(5 << 20), pytest.raises(StorageError, match=r"reads\.fastq could not"):
        for _ in range((12 << 20) // block):
            writer.write(os.urandom(block))
        writer.close()
    writer.discard()
    assert not writer.tmp_path.exists()
    assert _hashing_threads() == 0
