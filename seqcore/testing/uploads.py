"""Helpers for tests that upload sequence data: generated reads, multipart bodies, and a
disk that fills up."""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import random
import resource
import signal
from collections.abc import Iterable, Iterator


@functools.lru_cache(maxsize=512)
def fastq(reads: int = 20, length: int = 60, seed: int = 1, name: str = "read") -> bytes:
    """Random FASTQ records (reproducible for a seed: the same arguments give the same bytes,
    made once per process, since the factories ask for the same few files thousands of
    times)."""
    rng = random.Random(seed)
    out = []
    for i in range(reads):
        seq = "".join(rng.choice("ACGT") for _ in range(length))
        qual = "".join(chr(33 + rng.randint(2, 40)) for _ in range(length))
        out.append(f"@{name}{i}\n{seq}\n+\n{qual}\n")
    return "".join(out).encode()


@functools.lru_cache(maxsize=512)
def fasta(contigs: int = 3, length: int = 200, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    return "".join(f">contig{i}\n" + "".join(rng.choice("ACGT") for _ in range(length)) + "\n"
                   for i in range(contigs)).encode()


def hdf5(payload: bytes = bytes(range(256)) * 8) -> bytes:
    """A file that starts as HDF5 does: the signature and a version 0 superblock (8-byte
    offsets and lengths, no free-space or driver block, its end of file the file's size),
    then ``payload``: what a FAST5 upload's check accepts as ``SINGLE``."""
    size = 8 + 16 + 4 * 8 + len(payload)
    undefined = b"\xff" * 8
    return (b"\x89HDF\r\n\x1a\n" + bytes([0, 0, 0, 0, 0, 8, 8, 0, 4, 0, 16, 0, 0, 0, 0, 0])
            + (0).to_bytes(8, "little") + undefined + size.to_bytes(8, "little")
            + undefined + payload)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def quoted(value: str) -> str:
    """``value`` inside a quoted-string: ``\\`` and ``"`` escaped with a backslash, as
    curl sends them; every other character (line feeds too) as it is."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def multipart(parts: Iterable[tuple[str, str | None, bytes, str | None]],
              boundary: str = "B0undary") -> tuple[bytes, str]:
    """A multipart/form-data body as the IRIDA uploader sends it: ``(name, filename,
    content, content type)`` per part; file parts without a content type."""
    chunks = []
    for name, filename, content, content_type in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{quoted(filename)}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        if content_type:
            head += f"Content-Type: {content_type}\r\n"
        chunks.append(head.encode() + b"\r\n" + content + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


def parameters(**values: object) -> tuple[str, None, bytes, str]:
    return ("parameters", None, json.dumps(values).encode(), "application/json")


@contextlib.contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """No file of this process may grow past ``limit`` bytes while the block runs: writes
    beyond it fail (EFBIG), as they do when the disk fills up."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


CREATE_DIRECT_UPLOAD = """mutation($filename: String!, $contentType: String!,
    $checksum: String!, $byteSize: BigInt!) {
  createDirectUpload(input: {filename: $filename, contentType: $contentType,
                             checksum: $checksum, byteSize: $byteSize}) {
    directUpload { url headers blobId signedBlobId } } }"""


def md5_base64(data: bytes) -> str:
    """The checksum Active Storage clients send: the base64 of the MD5 digest."""
    import base64
    import hashlib

    return base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()


def direct_upload(testapp: object, graphql: object, filename: str, data: bytes,
                  content_type: str = "application/octet-stream") -> str:
    """IRIDA Next's upload path, first half: ``createDirectUpload`` (as the caller
    ``graphql`` speaks for), then ``PUT`` the bytes to the URL with the headers it gave, no
    other credentials. Returns the ``signedBlobId`` to attach."""
    body = graphql(CREATE_DIRECT_UPLOAD, {  # type: ignore[operator]
        "filename": filename, "contentType": content_type, "checksum": md5_base64(data),
        "byteSize": len(data)})
    assert "errors" not in body, body
    upload = body["data"]["createDirectUpload"]["directUpload"]
    headers = json.loads(upload["headers"])
    testapp.put(upload["url"], data, headers=headers, status=204)  # type: ignore[attr-defined]
    return str(upload["signedBlobId"])
