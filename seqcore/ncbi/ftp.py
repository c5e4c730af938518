"""The NCBI submission FTP account, through the standard library's ``ftplib``.

Uploads resume: before sending a file the client asks the server its size there (``SIZE``,
in binary mode). A file already whole is not sent again; a partial one (a connection lost
mid-transfer) is continued from where the server's copy ends (``REST`` + ``STOR``); a larger
one (a different file under that name) is sent again from the start. After each transfer the
server's size must equal the local size, or the file does not count as uploaded. (A server
that answers ``SIZE`` with "not implemented" gets whole files, and its transfer reply is
trusted.)

The password is handed to ``ftplib`` and nowhere else: it is not part of any message,
``repr`` or log line.
"""

from __future__ import annotations

import ftplib
import io
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

BLOCK = 1 << 16
#: What is sent: a local file, bytes, or a function opening a stored file (an object store's
#: stream, which seeks for a resumed upload).
Source = Path | bytes | Callable[[], BinaryIO]

#: Errors meaning the connection (or the server's state for it) was lost: worth reconnecting.
CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError, EOFError, ftplib.error_temp, ftplib.error_reply, ftplib.error_proto)
#: The connection lost, or a request refused for good.
FTP_ERRORS: tuple[type[BaseException], ...] = (*CONNECTION_ERRORS, ftplib.error_perm)


class FtpRefused(Exception):
    """The server refused something for good (log-in, a directory, a file): reconnecting
    will not help."""


@dataclass(frozen=True)
class FtpAccount:
    host: str
    port: int
    user: str
    password: str = field(repr=False)
    directory: str
    passive: bool = True
    timeout: float = 60.0

    @classmethod
    def from_settings(cls, settings: Any) -> FtpAccount | None:
        """The configured account, or ``None`` while ``seqcore.ncbi.ftp_host`` is empty."""
        host = str(settings.get("seqcore.ncbi.ftp_host") or "").strip()
        if not host:
            return None
        return cls(host=host, port=int(settings["seqcore.ncbi.ftp_port"]),
                   user=str(settings["seqcore.ncbi.ftp_user"] or ""),
                   password=str(settings["seqcore.ncbi.ftp_password"] or ""),
                   directory=str(settings["seqcore.ncbi.ftp_directory"] or "").strip(),
                   passive=bool(settings["seqcore.ncbi.ftp_passive"]),
                   timeout=float(settings["seqcore.ncbi.ftp_timeout"]))

    def __str__(self) -> str:
        return f"{self.user}@{self.host}:{self.port}"


class FtpSession:
    """One logged-in connection."""

    def __init__(self, account: FtpAccount) -> None:
        self.account = account
        self.ftp = ftplib.FTP(timeout=account.timeout)
        self.ftp.connect(account.host, account.port)
        try:
            self.ftp.login(account.user, account.password)
        except ftplib.error_perm as err:
            self.close()
            raise FtpRefused(f"{account} refused the log-in: {_reply(err)}") from None
        self.ftp.set_pasv(account.passive)
        self.sizes = True

    def close(self) -> None:
        try:
            self.ftp.quit()
        except FTP_ERRORS:
            self.ftp.close()

    def enter(self, directory: str, create: bool = False) -> None:
        """Change to ``directory`` (relative to the log-in directory, ``/``-separated),
        creating each missing part when ``create``."""
        if directory.startswith("/"):
            self.ftp.cwd("/")
        for part in [p for p in directory.split("/") if p]:
            try:
                self.ftp.cwd(part)
            except ftplib.error_perm as err:
                if not create:
                    raise FtpRefused(f"no directory {directory!r} on {self.account}: "
                                     f"{_reply(err)}") from None
                try:
                    self.ftp.mkd(part)
                    self.ftp.cwd(part)
                except ftplib.error_perm as err2:
                    raise FtpRefused(f"cannot create directory {directory!r} on "
                                     f"{self.account}: {_reply(err2)}") from None

    def size(self, name: str) -> int | None:
        """The size of ``name`` in the current directory, ``None`` when there is none (or
        the server does not tell sizes: then :attr:`sizes` is false)."""
        self.ftp.voidcmd("TYPE I")
        try:
            return self.ftp.size(name)
        except ftplib.error_perm as err:
            if str(err).startswith(("500", "502", "504")):
                self.sizes = False  # SIZE not implemented
            return None

    def upload(self, name: str, source: Source, size: int) -> int:
        """Make ``name`` hold ``source`` (``size`` bytes), sending only what the server lacks;
        returns how many bytes were sent."""
        present = self.size(name)
        if present == size:
            return 0
        offset = present if present is not None and present < size else 0
        with _open(source) as stream:
            stream.seek(offset)
            try:
                self.ftp.storbinary(f"STOR {name}", stream, BLOCK,
                                    rest=offset if offset else None)
            except ftplib.error_perm as err:
                if offset and str(err).startswith(("501", "502", "504", "550")):
                    # The server takes no restart: send the whole file again.
                    stream.seek(0)
                    offset = 0
                    self.ftp.storbinary(f"STOR {name}", stream, BLOCK)
                else:
                    raise FtpRefused(f"{self.account} refused {name}: {_reply(err)}") from None
        arrived = self.size(name)
        if not self.sizes:
            return size - offset  # nothing to check against: the server's 226 must do
        if arrived != size:
            raise ftplib.error_temp(f"451 {name}: the server holds {arrived} bytes of {size}")
        return size - offset

    def names(self) -> list[str]:
        try:
            return self.ftp.nlst()
        except ftplib.error_perm:
            return []  # some servers answer an empty directory with 550

    def read(self, name: str, limit: int) -> bytes:
        """The content of ``name``, at most ``limit`` bytes (a larger file is refused)."""
        buffer = io.BytesIO()

        def keep(chunk: bytes) -> None:
            if buffer.tell() + len(chunk) > limit:
                raise FtpRefused(f"{name} is larger than {limit} bytes")
            buffer.write(chunk)

        self.ftp.retrbinary(f"RETR {name}", keep)
        return buffer.getvalue()


@contextmanager
def _open(source: Source) -> Iterator[BinaryIO]:
    if isinstance(source, bytes):
        yield io.BytesIO(source)
    elif callable(source):  # a stored file in an object store, opened when sent
        with source() as stream:
            yield stream
    else:
        with open(source, "rb") as stream:
            yield stream


def _reply(err: BaseException) -> str:
    return str(err).strip()[:300]


@contextmanager
def connected(account: FtpAccount) -> Iterator[FtpSession]:
    session = FtpSession(account)
    try:
        yield session
    finally:
        session.close()
