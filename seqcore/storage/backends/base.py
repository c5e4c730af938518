"""What every storage backend is asked (:class:`Backend`), and the error a bad setting of
one raises."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

BACKENDS = ("local", "s3", "azure")


class BackendSettingsError(ValueError):
    """The storage settings name no usable backend; the message names the setting."""


class Backend(Protocol):
    """The operations the storage service needs of where bytes live."""

    #: ``local``, ``s3`` or ``azure``.
    kind: str

    def describe(self) -> str:
        """Where the bytes are, for messages (a directory, ``s3://bucket``)."""

    def uri(self, key: str) -> str:
        """The key as the store's tools name it (a path, ``s3://bucket/key``)."""

    def put_file(self, key: str, source: Path) -> None:
        """Store a local file under ``key`` (multipart for large files, flat memory)."""

    def writer(self, key: str) -> Any:
        """A file-like object (``write``, ``close``) whose bytes become ``key`` when closed
        (multipart upload: memory stays flat whatever the size)."""

    def open(self, key: str) -> BinaryIO:
        """The stored bytes, read as a stream."""

    def size(self, key: str) -> int | None:
        """The stored size, or ``None`` when ``key`` is not stored."""

    def delete(self, key: str) -> None:
        """Remove ``key`` (nothing if absent)."""

    def stored_keys(self, prefix: str = "") -> Iterator[str]:
        """Every stored key under ``prefix``."""

    def signed_url(self, key: str, method: str, seconds: int) -> str | None:
        """A URL that reads (``GET``) or writes (``PUT``) ``key`` without other credentials
        for ``seconds``; ``None`` where the backend has none (a local directory)."""

    def download(self, key: str, target: Path) -> None:
        """Copy ``key`` into the local file ``target`` (a staged copy)."""
