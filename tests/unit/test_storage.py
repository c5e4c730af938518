"""The storage writer's SHA-256 (hashed in a companion thread for large blocks) is the hash of
exactly the bytes written, and a discarded or finished writer leaves no thread behind."""

from __future__ import annotations

import hashlib
import os
import threading

import transaction

from seqcore.storage import Storage


def _hashing_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "sha256")


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
