"""The storage service behaves the same on every backend: the local directory, an S3 bucket
(moto on loopback) and an Azure container (Azurite): a written file reads back with its
SHA-256, an aborted transaction or a discarded writer leaves no object, removal waits for the
commit, and object stores hand out signed URLs that read and write without credentials."""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.parse
import urllib.request

import pytest
import transaction
from pyramid.exceptions import ConfigurationError

from seqcore.storage.backends import BackendSettingsError
from seqcore.storage.service import StorageError, includeme, storage_from_settings

pytestmark = pytest.mark.database_independent


@pytest.fixture
def storage(storage_backend_settings, tmp_path):
    return storage_from_settings({"seqcore.storage.path": str(tmp_path / "storage"),
                                  **storage_backend_settings})


def _stored(storage):
    return sorted(storage.backend.stored_keys())


def _write(storage, name, blocks):
    writer = storage.writer(name)
    for block in blocks:
        writer.write(block)
    return writer


def test_written_file_reads_back_with_its_checksum(storage):
    blocks = [os.urandom(n) for n in (10, 70_000, 1 << 20, 3, 5 << 20)]
    writer = _write(storage, "reads R1.fastq.gz", blocks)
    manager = transaction.TransactionManager()
    manager.begin()
    key = writer.place(manager)
    manager.commit()
    content = b"".join(blocks)
    assert writer.sha256 == hashlib.sha256(content).hexdigest()
    assert writer.size == storage.size(key) == len(content)
    with storage.open(key) as fh:
        assert fh.read() == content
    with storage.local_copy(key) as path:
        assert path.read_bytes() == content
    assert _stored(storage) == [key]
    if storage.is_local:
        assert storage.path(key).read_bytes() == content
    else:
        with pytest.raises(StorageError, match="ask for a local copy"):
            storage.path(key)


def test_aborted_transaction_and_discarded_writer_leave_nothing(storage):
    manager = transaction.TransactionManager()
    manager.begin()
    _write(storage, "kept.fastq", [os.urandom(1 << 20)]).place(manager)
    manager.abort()
    discarded = _write(storage, "refused.fastq", [os.urandom(3 << 20)])
    discarded.discard()
    closed = _write(storage, "closed-then-refused.fastq", [b"@r\nA\n+\nI\n"])
    closed.close()
    closed.discard()
    assert _stored(storage) == []


def test_removal_waits_for_the_commit(storage):
    manager = transaction.TransactionManager()
    manager.begin()
    key, digest, size = storage.store_file(_local_file(storage), "out.tsv", manager)
    manager.commit()
    assert size == 6 and digest == hashlib.sha256(b"a\tb\nc\n").hexdigest()
    manager.begin()
    storage.remove_after_commit([key], manager)
    assert _stored(storage) == [key]
    manager.commit()
    assert _stored(storage) == []


def _local_file(storage):
    path = storage.root.parent / "source.tsv"
    path.write_bytes(b"a\tb\nc\n")
    return path


def test_signed_urls_read_and_write_without_credentials(storage):
    if storage.is_local:
        assert storage.signed_url("aa/bb/x") is None
        return
    manager = transaction.TransactionManager()
    manager.begin()
    key = _write(storage, "reads of é 1.fastq", [b"@r\nACGT\n+\nIIII\n"]).place(manager)
    assert key.endswith("/reads_of___1.fastq")
    manager.commit()
    with urllib.request.urlopen(storage.signed_url(key, seconds=60)) as response:
        assert response.read() == b"@r\nACGT\n+\nIIII\n"
    put = urllib.parse.urlsplit(storage.signed_url("direct/upload.fastq", "PUT", 60))
    conn = http.client.HTTPConnection(put.hostname, put.port)
    headers = {"Content-Type": "application/octet-stream", "x-ms-blob-type": "BlockBlob"}
    conn.request("PUT", f"{put.path}?{put.query}", body=b"12345", headers=headers)
    assert conn.getresponse().status in (200, 201)
    assert storage.size("direct/upload.fastq") == 5


@pytest.mark.parametrize("settings, message", [
    ({"seqcore.storage.backend": "s3"}, "'seqcore.storage.bucket' is required"),
    ({"seqcore.storage.backend": "azure", "seqcore.storage.bucket": "c",
      "seqcore.storage.access_key_id": "acct"}, "go together"),
    ({"seqcore.storage.backend": "s3", "seqcore.storage.bucket": "b",
      "seqcore.storage.endpoint": "minio:9000"}, "not an http:// or https:// URL"),
    ({"seqcore.storage.backend": "ftp"}, "not one of local, s3, azure"),
])
def test_bad_settings_stop_the_start_with_the_setting_named(settings, message, tmp_path):
    full = {"seqcore.storage.path": str(tmp_path), **settings}
    with pytest.raises(BackendSettingsError, match=message):
        storage_from_settings(full)

    class Config:
        def get_settings(self):
            return full

    with pytest.raises(ConfigurationError, match=message):
        includeme(Config())  # type: ignore[arg-type]


def test_a_stored_stream_seeks_for_a_resumed_ftp_upload(storage):
    from functools import partial

    from seqcore.ncbi.ftp import _open

    manager = transaction.TransactionManager()
    manager.begin()
    content = os.urandom(3 << 20)
    key = _write(storage, "reads.fastq.gz", [content]).place(manager)
    manager.commit()
    with _open(partial(storage.open, key)) as stream:
        stream.seek(1 << 20)
        assert stream.tell() == 1 << 20
        assert stream.read() == content[1 << 20:]
