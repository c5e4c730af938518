"""Direct uploads into an object store: where ``createDirectUpload`` sends the client, and the
worker's checks once the bytes have arrived.

With a local directory, a direct upload's ``PUT`` goes to seqcore (``/api/directUploads/{key}``)
and is checked as it streams in. With an object store, ``createDirectUpload`` answers a signed
``PUT`` URL of the store (living ``seqcore.storage.signed_url_seconds``) for the blob's own key
(:func:`object_key`), so the bytes never pass through seqcore; the store itself refuses a body
whose ``Content-MD5`` header differs from its bytes. The worker (:class:`DirectUploadChecker`)
then finds each announced blob whose object has arrived and reads it once: its size and MD5
must be the announced ones and its content pass the check a REST upload of its format gets
(FASTQ, FASTA). A blob that passes gets its stored file (the object, where it is: no copy) and
may be attached; one that fails has its object deleted at once, so a refused upload leaves
nothing behind. Attaching a blob the worker has not seen yet runs the same check inline
(:func:`receive_blob`), so IRIDA Next's client flow (``createDirectUpload``, ``PUT``, attach at
once) works unchanged; a blob whose object has not arrived answers that it is still awaited.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import logging
import time
from typing import Any

import transaction
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import session_for, utcnow
from seqcore.db.locks import lock_row
from seqcore.files.contentchecks import FastaCheck, FastqCheck, verify_gzip
from seqcore.files.uploads import BadContent
from seqcore.models.attachment import DirectUpload, file_metadata
from seqcore.models.sequencing import SequenceFile
from seqcore.services import ISessionFactory, IStorage, registry_service
from seqcore.storage.service import Storage, object_name

log = logging.getLogger(__name__)
BLOCK = 8 << 20
# How often the worker looks for arrived uploads, at most.
INTERVAL = 2.0


def md5_base64(checksum: object) -> bytes | None:
    """The 16 bytes of an MD5 given as base64 (Active Storage's ``checksum``, 24 characters)
    or as 32 hexadecimal digits (what ``md5sum`` prints), or ``None``.

    The two forms cannot be confused: a 32-character base64 text decodes to 24 bytes, not
    16, so a 32-character value is read as hexadecimal only."""
    if not isinstance(checksum, str):
        return None
    if len(checksum) == 32:
        try:
            return bytes.fromhex(checksum)
        except ValueError:
            return None
    try:
        raw = base64.b64decode(checksum, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 16 else None


def content_check(settings: Any, filename: str, length: int) -> Any:
    """The check a REST upload of this format gets (FASTQ, FASTA); none for other files."""
    fmt = file_metadata(filename)["format"]
    gzip = verify_gzip(settings, length)
    if fmt == "fastq":
        return FastqCheck(verify_gzip=gzip)
    if fmt == "fasta":
        return FastaCheck(verify_gzip=gzip)
    return None


def object_key(blob: DirectUpload) -> str:
    """The key a blob's bytes are ``PUT`` under in an object store (and stay under)."""
    return f"direct/{blob.key}/{object_name(blob.filename)}"


def upload_target(storage: Storage, blob: DirectUpload) -> tuple[str, dict[str, str]] | None:
    """The signed ``PUT`` URL of the store and the headers to send with it, or ``None``
    where uploads go through seqcore (a local directory)."""
    if storage.is_local:
        return None
    url = storage.signed_url(object_key(blob), "PUT")
    assert url is not None
    headers = {"Content-Type": blob.content_type, "Content-MD5": blob.checksum}
    if storage.backend.kind == "azure":
        headers["x-ms-blob-type"] = "BlockBlob"
    return url, headers


def check_arrival(storage: Storage, settings: Any, blob: DirectUpload) -> str:
    """Read the arrived object once; its SHA-256, or :class:`BadContent` saying why it is
    refused (size, MD5, content)."""
    check = content_check(settings, blob.filename, blob.byte_size)
    md5 = hashlib.md5(usedforsecurity=False)
    sha = hashlib.sha256()
    size = 0
    try:
        with storage.open(object_key(blob)) as fh:
            while block := fh.read(BLOCK):
                size += len(block)
                if size > blob.byte_size:
                    break
                md5.update(block)
                sha.update(block)
                if check is not None:
                    check.feed(block)
        if size != blob.byte_size:
            raise BadContent(f"the upload has {'more than ' if size > blob.byte_size else ''}"
                             f"{size} bytes; createDirectUpload announced {blob.byte_size}.")
        expected = md5_base64(blob.checksum)
        if expected is None or not hmac.compare_digest(md5.digest(), expected):
            raise BadContent("the upload's MD5 differs from the checksum given to "
                             "createDirectUpload.")
        if check is not None:
            check.finish()
    finally:
        close = getattr(check, "close", None)
        if close is not None:
            close()
    return sha.hexdigest()


def receive_blob(db: Session, storage: Storage, settings: Any, blob: DirectUpload) -> bool:
    """Check one announced blob whose object may have arrived; whether it was received (its
    stored file made, so it can be attached). A refused object is deleted at once and
    :class:`BadContent` says why.

    The worker's round and an attach (which checks inline, so a client that attaches right
    after its ``PUT`` is answered at once) may reach one blob together: the blob's row is
    held while it is checked, and a blob the other already received is left as it is.
    """
    lock_row(db, DirectUpload, blob.id)
    db.refresh(blob)
    if blob.file_id is not None:
        return True
    key = object_key(blob)
    size = storage.size(key)
    if size is None:
        return False
    try:
        digest = check_arrival(storage, settings, blob)
    except BadContent as err:
        log.warning("direct upload %s (%s) refused: %s", blob.id, blob.filename, err)
        storage.remove_now([key])
        raise
    record = SequenceFile(path=key, file_name=blob.filename, size=size,
                          upload_sha256=digest, created=utcnow())
    db.add(record)
    db.flush()
    blob.file, blob.uploaded = record, record.created
    db.flush()
    return True


def receive_arrived(db: Session, storage: Storage, settings: Any) -> int:
    """Check every announced blob whose object has arrived (see module); how many were."""
    pending = list(db.scalars(select(DirectUpload).where(DirectUpload.file_id.is_(None))
                              .order_by(DirectUpload.id)))
    seen = 0
    for blob in pending:
        if storage.size(object_key(blob)) is None:
            continue
        seen += 1
        with contextlib.suppress(BadContent):  # logged, and its object deleted
            receive_blob(db, storage, settings, blob)
    return seen


class DirectUploadChecker:
    """The worker's round of :func:`receive_arrived` (object stores only), at most every
    :data:`INTERVAL` seconds."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self._next = 0.0

    def run_once(self) -> int:
        storage: Storage = registry_service(self.registry, IStorage)
        if storage.is_local or time.monotonic() < self._next:
            return 0
        self._next = time.monotonic() + INTERVAL
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(registry_service(self.registry, ISessionFactory), manager)
            return receive_arrived(db, storage, self.registry.settings)
