"""Streaming ``multipart/form-data`` uploads.

The body is read from the WSGI input in blocks and fed to :class:`MultipartStream`; file
parts go straight to storage writers (hashing as they go) and through the file kind's
content check, so memory stays flat whatever the file size. Small parts (``parameters``) are
kept in memory up to a limit. Every malformed body is a 4xx and discards what was written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from email.message import Message
from email.utils import collapse_rfc2231_value

from pyramid.request import Request

from seqcore.files.uploads import BadContent, ContentCheck, ReceivedFile
from seqcore.rest.bodyreader import body_reader
from seqcore.rest.errors import ApiError
from seqcore.rest.multipart_stream import MultipartError, MultipartStream
from seqcore.storage.service import (
    FILE_NAME_LIMIT,
    FileTooLarge,
    Storage,
    StorageError,
    Writer,
    name_too_long,
    safe_basename,
)

BLOCK = 1 << 20
SMALL_PART_LIMIT = 64 * 1024


_HIDE_BREAKS = str.maketrans({"\r": "\ue000", "\n": "\ue001"})
_SHOW_BREAKS = str.maketrans({"\ue000": "\r", "\ue001": "\n"})


def parse_options_header(value: str | bytes) -> tuple[bytes, dict[bytes, bytes]]:
    """A MIME header's value, lower-cased, and its parameters (``multipart/form-data;
    boundary=...``, ``form-data; name="file1"; filename="..."``), read by the standard
    library's e-mail parser: quoted strings, escapes and RFC 2231 values (``filename*=``).
    Header bytes are Latin-1 on the wire; the values keep their bytes, so a UTF-8 file name is
    decoded where it is used. A Windows path in ``filename`` (``C:\\dir\\r1.fastq``, as some
    browsers send it unescaped) is kept whole: :func:`safe_basename` takes its last part."""
    message = Message()
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    # A header may not hold a line break, but a file name in one may (it is stored as sent):
    # carry them through the parser as characters Latin-1 text never has.
    message["h"] = text.translate(_HIDE_BREAKS)
    params = message.get_params(header="h", unquote=False) or []
    if not params:
        return b"", {}
    options: dict[bytes, bytes] = {}
    for key, raw in params[1:]:
        if isinstance(raw, tuple):  # RFC 2231: (charset, language, value)
            text = collapse_rfc2231_value(raw)
            if len(text) >= 2 and text[0] == text[-1] == '"':
                text = text[1:-1]
            options[key.lower().rstrip("*").encode("latin-1")] = (
                text.translate(_SHOW_BREAKS).encode("utf-8"))
            continue
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            # Backslashes stay unless they escape a quote or a backslash (browsers send
            # Windows paths unescaped).
            raw = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        options.setdefault(key.lower().encode("latin-1"),
                           raw.translate(_SHOW_BREAKS).encode("latin-1"))
    return params[0][0].translate(_SHOW_BREAKS).lower().encode("latin-1"), options


@dataclass
class Part:
    name: str
    filename: str | None = None
    content_type: str | None = None
    data: bytearray = field(default_factory=bytearray)
    writer: Writer | None = None
    check: ContentCheck | None = None


@dataclass
class Upload:
    """The parsed parts of one request; call :meth:`discard` if the request fails."""

    parts: dict[str, Part]

    def discard(self) -> None:
        for part in self.parts.values():
            close = getattr(part.check, "close", None)
            if close is not None:
                close()
            if part.writer is not None and part.writer.placed is None:
                part.writer.discard()

    def file(self, name: str) -> Part | None:
        part = self.parts.get(name)
        return part if part is not None and part.writer is not None else None

    def received(self, name: str) -> ReceivedFile:
        """A file part, as the domain receives it (:mod:`seqcore.files.uploads`)."""
        part = self.parts[name]
        assert part.writer is not None
        return ReceivedFile(part.filename or "", part.writer)


def parse_upload(request: Request, storage: Storage, file_limit: int,
                 check_for: Callable[[str, str], ContentCheck | None],
                 file_parts: Collection[str], small_parts: Collection[str]) -> Upload:
    """Stream the request's multipart body into storage.

    :param file_limit: the largest total body accepted (413 beyond it, checked as bytes
        arrive, before anything is kept).
    :param check_for: ``(part name, file name) -> ContentCheck`` for file parts.
    :param file_parts: the names of the parts that carry files; with a file name they
        stream to storage.
    :param small_parts: the names of the parts kept in memory (``parameters``), with or
        without a file name (``curl -F parameters=@p.json`` sends one).

    A part of any other name is refused (400) as soon as its headers arrive, before any of
    its bytes are kept; so is a file name longer than :data:`FILE_NAME_LIMIT` bytes.
    """
    accepted = sorted({*file_parts, *small_parts})
    content_type, params = parse_options_header(request.headers.get("Content-Type", ""))
    if content_type != b"multipart/form-data" or b"boundary" not in params:
        raise ApiError(415, body={
            "message": "Uploads must be multipart/form-data with a boundary.",
            "supported-media-types": ["multipart/form-data"]})
    length = request.content_length
    if length is not None and length > file_limit:
        raise ApiError(413, message=f"The upload is larger than the limit of {file_limit} "
                                    "bytes.")
    parts: dict[str, Part] = {}
    upload = Upload(parts)
    current: list[Part] = []  # the part being received, while there is one

    def on_part(headers: dict[bytes, bytes]) -> None:
        disposition, options = parse_options_header(headers.get(b"content-disposition", b""))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        if disposition != b"form-data" or not name:
            raise ApiError(400, message="A multipart part has no form-data name.")
        if name in parts:
            raise ApiError(400, message=f"The part '{name}' appears more than once.")
        if name not in file_parts and name not in small_parts:
            raise ApiError(400, message=f"Unexpected part(s) {name}; this upload takes "
                                        f"{', '.join(accepted)}.")
        part = Part(name=name, content_type=headers.get(b"content-type", b"")
                    .decode("latin-1") or None)
        raw_filename = options.get(b"filename")
        if raw_filename is not None and name in file_parts:
            original = raw_filename.decode("utf-8", "replace")
            base = safe_basename(original)
            if base is None:
                raise ApiError(400, message=f"The file name {original!r} of part '{name}' "
                                            "has no usable name.")
            if name_too_long(base):
                raise ApiError(400, message=f"The file name of part '{name}' is longer than "
                                            f"{FILE_NAME_LIMIT} bytes.")
            part.filename = base
            part.writer = storage.writer(base)
            part.check = check_for(name, base)
            follow = getattr(part.check, "follow", None)
            if follow is not None:
                follow(part.writer)
        parts[name] = part
        current[:] = [part]

    def on_data(chunk: bytes | memoryview) -> None:
        part = current[0]
        if part.writer is not None:
            part.writer.write(chunk)  # a view of the received block: hashed and written as is
            if part.check is not None:
                part.check.feed(chunk)
        else:
            part.data += chunk
            if len(part.data) > SMALL_PART_LIMIT:
                raise ApiError(413, message=f"The part '{part.name}' is larger than "
                                            f"{SMALL_PART_LIMIT} bytes.")

    def on_part_end() -> None:
        # Checks finish once the whole body is in, so a pair's two checks run side by side.
        current.clear()

    try:
        parser = MultipartStream(params[b"boundary"], on_part, on_data, on_part_end)
    except MultipartError as err:
        raise ApiError(400, message=f"The multipart body is malformed: {err}") from None
    stream = body_reader(request)
    remaining = length
    received = 0
    try:
        while remaining is None or remaining > 0:
            block = stream.read(BLOCK if remaining is None else min(BLOCK, remaining))
            if not block:
                break
            received += len(block)
            if received > file_limit:
                raise ApiError(413, message=f"The upload is larger than the limit of "
                                            f"{file_limit} bytes.")
            if remaining is not None:
                remaining -= len(block)
            try:
                parser.feed(block)
            except BadContent as err:
                name = current[0].filename if current else "upload"
                raise ApiError(400, message=f"{name}: {err}") from None
            except MultipartError as err:
                raise ApiError(400, message=f"The multipart body is malformed: {err}") from None
        if remaining:
            raise ApiError(400, message="The upload ended before the announced length: the "
                                        "client disconnected or the body was truncated.")
        if not parser.ended:
            raise ApiError(400, message="The multipart body is truncated: its closing "
                                        "boundary is missing.")
        for part in parts.values():
            if part.writer is not None:
                part.writer.close()
                # Refused here for every kind, so no content check has to (or can forget to).
                if part.writer.size == 0:
                    raise ApiError(400, message=f"{part.filename}: the file is empty.")
            if part.check is not None:
                try:
                    part.check.finish()
                except BadContent as err:
                    raise ApiError(400, message=f"{part.filename}: {err}") from None
    except FileTooLarge:
        upload.discard()
        raise ApiError(413, message=f"The upload is larger than the limit of {file_limit} "
                                    "bytes.") from None
    except StorageError as err:  # disk full: nothing is kept, the client may retry later
        upload.discard()
        raise ApiError(507, message=f"The upload could not be stored: {err}") from None
    except BaseException:
        upload.discard()
        raise
    return upload
