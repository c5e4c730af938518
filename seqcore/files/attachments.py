"""Attachments and direct uploads: the operations behind IRIDA Next's ``createDirectUpload``,
the upload ``PUT`` and ``attachFilesTo<Owner>``, shared by every transport.

The flow is IRIDA Next's (Active Storage's direct upload): a client announces a file
(:func:`announce`: name, size, base64 MD5, content type) and gets a blob; it ``PUT``s exactly
those bytes, which a transport streams into storage and hands to :func:`complete_upload`
(size and MD5 already compared); it then attaches the blob to an owner (:func:`attach`).

Owners are generic: :class:`Owner` names the owner column of
:class:`~seqcore.models.attachment.Attachment` and the owner's id; everything here works for
any owner. Attached FASTQ files of a *sample* become sequencing objects of the file kinds that
declare ``attachment_format="fastq"`` (a detected pair → the kind with ``files=2``, any other
FASTQ → the kind with ``files=1``), so QC and analyses see them as they see REST uploads.
Metadata (``format``, ``compression``, and for pairs ``type``, ``direction``,
``associated_attachment_id``) is inferred from file names as IRIDA Next does.
"""

from __future__ import annotations

import base64
import re
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

import transaction
from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.orm import Session

from seqcore.db import session_for, utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Invalid
from seqcore.files.directuploads import md5_base64, object_key, receive_blob
from seqcore.files.uploads import BadContent, ReceivedFile, add_object, lock_sample, store_file
from seqcore.framework.contrib import FileKind
from seqcore.governance.activity import operation
from seqcore.governance.purge import purge_files
from seqcore.models.attachment import OWNER_COLUMNS, Attachment, DirectUpload, file_metadata
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.models.user import User
from seqcore.services import ISessionFactory, IStorage, registry_service
from seqcore.storage.service import name_too_long, safe_basename

# IRIDA Next's FASTQ_PAIRING_FILENAME_REGEX: Illumina's names first, then _1/_2, _R1/_R2, _F/_R.
ILLUMINA_PE = re.compile(
    r"^(?P<sample_name>.+_[^_]+(?:_L[0-9]{3})?)_R(?P<region>[1-2])_(?P<set>[0-9]{3})"
    r"\.(?P<suffix>.+)$")
PE = re.compile(r"^(?P<sample_name>.+_)(?P<region>R?[1-2]|[FfRr])\.(?P<suffix>.+)$")
PE_REGIONS = {"1": ("forward", "1-2"), "2": ("reverse", "1-2"), "R1": ("forward", "R1-R2"),
              "R2": ("reverse", "R1-R2"), "F": ("forward", "F-R"), "R": ("reverse", "F-R"),
              "f": ("forward", "f-r"), "r": ("reverse", "f-r")}
BLOB_ERROR = "Blob id could not be processed. Blob id is invalid or file is missing."
PENDING_ERROR = ("The upload has not arrived in storage yet; attach it again once its PUT "
                 "has completed.")
DUPLICATE_ERROR = "checksum matches existing file"
FASTQ = "fastq"


@dataclass(frozen=True)
class Owner:
    """What an attachment belongs to: an owner column of ``attachment`` and an id.

    ``kind`` is the column's stem (``sample``, ``project``, ``submission``, ``group``).
    Only a sample's FASTQ files become sequencing objects."""

    kind: str
    id: int

    def __post_init__(self) -> None:
        if f"{self.kind}_id" not in OWNER_COLUMNS:
            raise ValueError(f"attachments have no owner kind {self.kind!r}")

    @property
    def condition(self) -> ColumnElement[bool]:
        """``attachment`` rows of this owner."""
        return cast("ColumnElement[bool]", getattr(Attachment, f"{self.kind}_id") == self.id)

    def values(self) -> dict[str, int]:
        return {f"{self.kind}_id": self.id}


def pairing(filename: str, pair_type: str) -> tuple[str, str] | None:
    """``(direction, pair key)`` of a FASTQ name under IRIDA Next's ``illumina_pe`` or ``pe``
    convention, or ``None``."""
    if pair_type == "illumina_pe":
        match = ILLUMINA_PE.match(filename)
        if match is None:
            return None
        direction = "forward" if match["region"] == "1" else "reverse"
        return direction, f"{match['sample_name']}_{match['set']}_{match['suffix']}"
    match = PE.match(filename)
    if match is None or match["region"] not in PE_REGIONS:
        return None
    direction, suffix = PE_REGIONS[match["region"]]
    return direction, f"{match['sample_name']}_{suffix}_{match['suffix']}"


def find_pairs(attachments: Sequence[Attachment]) -> list[tuple[Attachment, Attachment]]:
    """Forward/reverse pairs among new FASTQ attachments (Illumina's names first, then the
    others), their metadata marked as IRIDA Next marks it. Attachments must have ids."""
    pairs: list[tuple[Attachment, Attachment]] = []
    left = [a for a in attachments if a.properties.get("format") == FASTQ]
    for pair_type in ("illumina_pe", "pe"):
        if len(left) < 2:
            break
        found: dict[str, dict[str, Attachment]] = {}
        for attachment in left:
            info = pairing(attachment.file.file_name, pair_type)
            if info is not None:
                found.setdefault(info[1], {})[info[0]] = attachment
        for ends in found.values():
            if "forward" not in ends or "reverse" not in ends:
                continue
            forward, reverse = ends["forward"], ends["reverse"]
            forward.properties = {**forward.properties, "type": pair_type,
                                  "direction": "forward",
                                  "associated_attachment_id": reverse.id}
            reverse.properties = {**reverse.properties, "type": pair_type,
                                  "direction": "reverse",
                                  "associated_attachment_id": forward.id}
            pairs.append((forward, reverse))
        paired = {id(a) for pair in pairs for a in pair}
        left = [a for a in left if id(a) not in paired]
    return pairs


# -- direct uploads ----------------------------------------------------------------------------


def pending_blobs(db: Session, user_id: int) -> int:
    """How many blobs the account announced that no attachment holds yet (never ``PUT``,
    or uploaded and not attached)."""
    attached = select(Attachment.id).where(Attachment.file_id == DirectUpload.file_id)
    return db.scalar(select(func.count()).select_from(DirectUpload).where(
        DirectUpload.user_id == user_id, ~attached.exists())) or 0


def announce(db: Session, user_id: int, *, filename: str, content_type: str, checksum: str,
             byte_size: int, limit: int, max_pending: int) -> DirectUpload:
    """A new blob awaiting its ``PUT``; :class:`Invalid` names every bad field at once.

    Each blob is a row (and, once ``PUT``, stored bytes) until it is attached or swept, so
    an account holds at most ``max_pending`` unattached ones: announcements beyond it are
    refused. The account's row is held while counting, so concurrent announcements cannot
    pass the bound together."""
    problems: dict[str, list[str]] = {}
    base = safe_basename(filename) if isinstance(filename, str) else None
    if base is None or base != filename.strip():
        problems["filename"] = ["filename must be a file name without directories."]
    elif name_too_long(base):
        problems["filename"] = ["filename is longer than 255 bytes."]
    if not isinstance(byte_size, int) or byte_size <= 0:
        problems["byteSize"] = ["byteSize must be greater than 0"]
    elif byte_size > limit:
        problems["byteSize"] = [f"byteSize is larger than the upload limit of {limit} bytes."]
    digest = md5_base64(checksum)
    if digest is None:
        problems["checksum"] = ["checksum must be the MD5 of the file, in base64 (24 "
                                "characters) or hexadecimal (32 digits)."]
    if not isinstance(content_type, str) or not content_type or len(content_type) > 255:
        problems["contentType"] = ["contentType must be a media type."]
    if problems:
        raise Invalid(problems)
    lock_row(db, User, user_id)
    if pending_blobs(db, user_id) >= max_pending:
        raise Invalid(message=f"You have {max_pending} direct uploads not yet attached; "
                              "attach them, or wait until unattached ones expire, before "
                              "announcing more.")
    # Kept in base64 whichever form was sent: the Content-MD5 header of the PUT is base64.
    blob = DirectUpload(key=secrets.token_urlsafe(24), user_id=user_id, filename=filename,
                        content_type=content_type,
                        checksum=base64.b64encode(digest or b"").decode(),
                        byte_size=byte_size)
    db.add(blob)
    db.flush()
    return blob


def signed_id(blob: DirectUpload) -> str:
    """The ``signedBlobId``: the blob's id and its key (a capability, as Active Storage's
    signed ids are)."""
    return f"{blob.id}--{blob.key}"


def blob_by_key(db: Session, key: str) -> DirectUpload | None:
    return db.scalar(select(DirectUpload).where(DirectUpload.key == key)) if key else None


def blob_by_signed_id(db: Session, value: object, user_id: int) -> DirectUpload | None:
    """The uploaded blob a ``signedBlobId`` names, if the caller announced it."""
    if not isinstance(value, str) or "--" not in value:
        return None
    pk, _, key = value.partition("--")
    blob = blob_by_key(db, key)
    if blob is None or str(blob.id) != pk or blob.user_id != user_id or blob.file is None:
        return None
    return blob


def awaiting_check(db: Session, value: object, user_id: int) -> bool:
    """Whether a ``signedBlobId`` names the caller's blob whose bytes the worker has not
    received yet (a direct upload into an object store: :mod:`seqcore.files.directuploads`)."""
    if not isinstance(value, str) or "--" not in value:
        return False
    pk, _, key = value.partition("--")
    blob = blob_by_key(db, key)
    return (blob is not None and str(blob.id) == pk and blob.user_id == user_id
            and blob.file_id is None)


def _received_now(request: Any, value: object, user_id: int
                  ) -> tuple[DirectUpload | None, str | None]:
    """A direct upload into an object store that the worker has not checked yet, checked now
    (:func:`~seqcore.files.directuploads.receive_blob`): ``(blob, None)`` once received,
    ``(None, why)`` when its bytes are refused (the object is gone), ``(None, None)`` while
    they have not arrived (or for anything else)."""
    storage = request.storage
    if storage.is_local or not awaiting_check(request.db, value, user_id):
        return None, None
    assert isinstance(value, str)
    blob = blob_by_key(request.db, value.partition("--")[2])
    assert blob is not None
    try:
        received = receive_blob(request.db, storage, request.registry.settings, blob)
    except BadContent as err:
        return None, f"The upload was refused: {err}"
    return (blob if received else None), None


def complete_upload(db: Session, tm: Any, blob: DirectUpload, received: ReceivedFile) -> None:
    """Keep the bytes a ``PUT`` brought (their size and MD5 already checked against the
    announcement). A blob is filled once: :class:`Invalid` for a second ``PUT``."""
    if blob.file_id is not None:
        raise Invalid(message="This upload has already been received.")
    record = store_file(tm, received)
    record.created = utcnow()
    db.add(record)
    db.flush()
    blob.file_id, blob.uploaded = record.id, record.created


# -- attaching ---------------------------------------------------------------------------------


@dataclass
class Attached:
    """The outcome of :func:`attach`: IRIDA Next's ``status`` (``{signedBlobId: "success" |
    "error"}``) and ``errors`` (``{path, message}``), and the attachments made."""

    status: dict[str, str] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)


def _duplicate(db: Session, owner: Owner, sha256: str | None, filename: str) -> bool:
    """IRIDA Next refuses a file whose name and checksum an attachment of the owner has."""
    return db.scalar(
        select(Attachment.id).join(SequenceFile, SequenceFile.id == Attachment.file_id)
        .where(owner.condition, SequenceFile.upload_sha256 == sha256,
               SequenceFile.file_name == filename).limit(1)) is not None


@operation("attachment.add")
def attach(request: Any, owner: Owner, signed_ids: Sequence[str], user_id: int,
           kinds: Mapping[str, FileKind] | None = None) -> Attached:
    """Attach the caller's uploaded blobs to ``owner``; each id gets a status, the bad ones
    an error, as IRIDA Next answers (the good ones are attached all the same).

    ``kinds`` are the registered file kinds; for a sample, attached FASTQ files become
    sequencing objects of the kinds that declare ``attachment_format="fastq"``.
    """
    db: Session = request.db
    outcome = Attached(status=dict.fromkeys(signed_ids, "error"))
    if owner.kind == "sample":
        lock_sample(db, owner.id)  # attachments to one sample take turns, as uploads do
    seen: set[tuple[str | None, str]] = set()
    for value in dict.fromkeys(signed_ids):
        blob = blob_by_signed_id(db, value, user_id)
        refusal = None
        if blob is None:
            blob, refusal = _received_now(request, value, user_id)
        if blob is None or blob.file is None:
            waiting = refusal is None and awaiting_check(db, value, user_id)
            outcome.errors.append({"path": ["blob_id", value], "message": (
                refusal or (PENDING_ERROR if waiting else BLOB_ERROR))})
            continue
        identity = (blob.file.upload_sha256, blob.file.file_name)
        if identity in seen or _duplicate(db, owner, *identity):
            outcome.errors.append({"path": ["attachment", value],
                                   "message": DUPLICATE_ERROR})
            continue
        seen.add(identity)
        attachment = Attachment(**owner.values(), file=blob.file,
                                download_key=secrets.token_urlsafe(24),
                                properties=file_metadata(blob.file.file_name),
                                created=utcnow())
        db.add(attachment)
        outcome.attachments.append(attachment)
        outcome.status[value] = "success"
    db.flush()
    pairs = find_pairs(outcome.attachments)
    if owner.kind == "sample" and kinds is not None:
        _sequencing_objects(request, owner.id, outcome.attachments, pairs, kinds)
    db.flush()
    return outcome


def attachment_kind(kinds: Mapping[str, FileKind], attachment_format: str,
                    files: int) -> FileKind | None:
    """The file kind that takes attached files of this format, ``files`` at a time."""
    return next((k for k in kinds.values()
                 if k.attachment_format == attachment_format and k.files == files), None)


def _sequencing_objects(request: Any, sample_id: int, attachments: Iterable[Attachment],
                        pairs: Sequence[tuple[Attachment, Attachment]],
                        kinds: Mapping[str, FileKind]) -> None:
    paired = {id(a) for pair in pairs for a in pair}
    groups: list[tuple[FileKind | None, list[Attachment]]] = [
        (attachment_kind(kinds, FASTQ, 2), list(pair)) for pair in pairs]
    groups += [(attachment_kind(kinds, FASTQ, 1), [a]) for a in attachments
               if a.properties.get("format") == FASTQ and id(a) not in paired]
    for kind, members in groups:
        if kind is not None:
            sequencing_object(request, kind, sample_id, members)


def sequencing_object(request: Any, kind: FileKind, sample_id: int,
                      members: Sequence[Attachment]) -> SequencingObject | None:
    """Make the attachments' stored files one sequencing object of ``kind`` in the sample,
    as an upload of those files would (``kind.prepare`` orders a pair). If the kind refuses
    them, the attachments stay plain files: nothing of the object is kept."""
    db: Session = request.db
    savepoint = db.begin_nested()
    try:
        obj = add_object(request, kind, sample_id, [a.file for a in members])
    except Exception:  # the kind refused the files (names it cannot order): no object
        savepoint.rollback()
        return None
    savepoint.commit()
    for attachment in members:
        attachment.object_id = obj.id
    return obj


def delete_attachments(db: Session, storage: Any, manager: Any, condition: Any) -> None:
    """Delete the attachments matching ``condition`` and purge their files (kept while a
    sequencing object, an output or another attachment still holds them; the bytes go
    once the transaction commits)."""
    file_ids = list(db.scalars(select(Attachment.file_id).where(condition)))
    if not file_ids:
        return
    db.execute(delete(Attachment).where(condition).execution_options(
        synchronize_session=False))
    purge_files(db, storage, manager, file_ids)


def expire_blobs(db: Session, storage: Any, manager: Any, older_than: Any) -> int:
    """Delete the direct uploads announced before ``older_than`` and never attached, and
    purge their files (a file an attachment holds stays): an abandoned upload leaves nothing
    behind. Returns how many went."""
    stale = list(db.scalars(select(DirectUpload).where(DirectUpload.created < older_than)))
    if not stale:
        return 0
    if not getattr(storage, "is_local", True):
        # Bytes PUT straight into the object store and never checked (arrived too late).
        storage.remove_after_commit([object_key(b) for b in stale if b.file_id is None],
                                    manager)
    file_ids = [b.file_id for b in stale if b.file_id is not None]
    db.execute(delete(DirectUpload).where(DirectUpload.id.in_([b.id for b in stale]))
               .execution_options(synchronize_session=False))
    purge_files(db, storage, manager, file_ids)
    return len(stale)


class BlobSweeper:
    """The worker's round of :func:`expire_blobs` (``seqcore.upload.unattached_hours``),
    at most once a minute."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self._next = 0.0

    def run_once(self) -> int:
        if time.monotonic() < self._next:
            return 0
        self._next = time.monotonic() + 60
        hours = float(self.registry.settings["seqcore.upload.unattached_hours"])
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(registry_service(self.registry, ISessionFactory), manager)
            expire_blobs(db, registry_service(self.registry, IStorage), manager,
                         utcnow() - timedelta(hours=hours))
        return 0
