"""Uploading FASTQ files from the browser, onto a sample or a project.

The upload area of a sample's page sends files to that sample; the project page's makes or
appends samples, each named after its files (:mod:`seqcore.files.fastqnames`: ``S1_R1_001``
and ``S1_R2_001`` are a pair of sample ``S1``). A pair becomes one object of the kind REST's
``.../pairs`` takes, a lone file one of the single-end kind, through the same domain
operation as REST's upload (:func:`seqcore.files.uploads.receive_upload`, the kind's content
check on the way) and under the same rights on the same traversal contexts: ``sample:write``
on the sample's files (and ``sample:create`` in the project for the project's area), so
whoever REST answers 404 or 403 gets 404 or 403 here, and sees no upload area.

Without JavaScript the area is a multipart form: every file is checked, and if any is
refused nothing is kept and the page lists each file's refusal in the domain's words. With
JavaScript (the ``upload`` Stimulus controller) each pair or single file is its own request,
answered in JSON, with a progress bar per file; files larger than
``seqcore.web.upload_direct_bytes`` (or than a form may be) go through the direct-upload path
instead (``announce`` here, the ``PUT`` of ``/api/directUploads/{key}``, then attached to the
sample as ``attachFilesToSample`` attaches them, :func:`seqcore.files.attachments.attach`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPException, HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.errors.domain import DomainError, Invalid
from seqcore.files.attachments import Owner, announce, attach, attachment_kind, blob_by_signed_id
from seqcore.files.contentchecks import verify_gzip
from seqcore.files.fastqnames import FileGroup, group_files
from seqcore.files.uploads import BadContent, ReceivedFile, receive_upload
from seqcore.framework.contrib import FileKind
from seqcore.models.sample import ProjectSample
from seqcore.parsing.schemas import SampleSchema
from seqcore.samples.samples import SampleValues, create_sample
from seqcore.security.formlimit import allow_large_forms
from seqcore.security.permissions import Permission
from seqcore.storage.service import FileTooLarge, StorageError, name_too_long, safe_basename
from seqcore.web.guard import (
    PageError,
    add_page,
    context_at,
    domain_message,
    may,
    require,
    signed_in,
)
from seqcore.web.i18n import _, translate

BLOCK = 1 << 20
FASTQ = "fastq"


class Refused(Exception):
    """One group of files cannot be kept; the message says why, in the domain's words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Outcome:
    """What became of one group of files: the sample it went to, or why it was refused."""

    files: tuple[str, ...]
    sample_name: str
    sample_id: int | None = None
    problem: str | None = None

    def as_json(self, request: Request) -> dict[str, Any]:
        return {"files": list(self.files), "sample": self.sample_name,
                "sampleUrl": (request.route_path("web.sample", id=self.sample_id)
                              if self.sample_id is not None else None),
                "problem": self.problem}


@dataclass
class Sent:
    """The files of one request: uploaded in the form, or direct uploads (signed blob ids)
    already stored, by file name."""

    uploads: dict[str, Any] = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [*self.uploads, *self.blobs]


def direct_threshold(request: Request) -> int:
    """The size above which the browser sends a group of files through the direct-upload
    path: the setting, but never more than a form may carry."""
    settings = request.registry.settings
    form = int(settings["seqcore.max_body_bytes"]) - 64 * 1024
    return max(1, min(int(settings["seqcore.web.upload_direct_bytes"]), form))


def wants_json(request: Request) -> bool:
    """Whether the caller is the page's controller (it asks for JSON only)."""
    offers = request.accept.acceptable_offers(["text/html", "application/json"])
    return bool(offers) and offers[0][0] == "application/json"


def _sent(request: Request, user_id: int) -> Sent:
    sent = Sent()
    for upload in request.POST.getall("files"):
        original = getattr(upload, "filename", None)
        if not original:
            continue
        name = safe_basename(str(original))
        if name is None or name_too_long(name):
            raise PageError(400, _("The file name ${name} cannot be stored: give the file a "
                                   "shorter name without directories.",
                                   mapping={"name": str(original)}))
        if name in sent.uploads:
            raise PageError(400, _("Two files are named ${name}: send them separately.",
                                   mapping={"name": name}))
        sent.uploads[name] = upload
    for value in request.POST.getall("blob"):
        blob = blob_by_signed_id(request.db, value, user_id)
        if blob is None:  # the attach step says so in the API's words
            sent.blobs[value] = value
        else:
            sent.blobs[blob.filename] = value
    if not sent.uploads and not sent.blobs:
        raise PageError(400, _("Choose one or more FASTQ files to upload."))
    return sent


def _kind(request: Request, group: FileGroup) -> FileKind:
    kind = attachment_kind(request.registry.get("seqcore.file_kinds", {}), FASTQ,
                           len(group.file_names))
    if kind is None:
        raise Refused("No file kind takes FASTQ files here.")
    return kind


def _received(request: Request, kind: FileKind, name: str, upload: Any) -> ReceivedFile:
    """The form's file streamed into storage through the kind's content check, as REST's
    upload streams its parts (:func:`seqcore.rest.multipart.parse_upload`)."""
    settings = request.registry.settings
    limit = int(settings["seqcore.upload.max_bytes"])
    check = kind.content_check({**settings, "seqcore.upload.verify_gzip": verify_gzip(
        settings, request.content_length)}) if kind.content_check is not None else None
    writer = request.storage.writer(name, limit=limit)
    try:
        source = upload.file
        source.seek(0)
        while block := source.read(BLOCK):
            writer.write(block)
            if check is not None:
                check.feed(block)
        writer.close()
        if writer.size == 0:
            raise Refused(f"{name}: the file is empty.")
        if check is not None:
            check.finish()
    except BadContent as err:
        writer.discard()
        raise Refused(f"{name}: {err}") from None
    except FileTooLarge:
        writer.discard()
        raise Refused(f"The upload is larger than the limit of {limit} bytes.") from None
    except StorageError as err:
        writer.discard()
        raise Refused(f"The upload could not be stored: {err}") from None
    except BaseException:
        writer.discard()
        raise
    finally:
        close = getattr(check, "close", None)
        if close is not None:
            close()
    return ReceivedFile(name, writer)


def _receive(request: Request, group: FileGroup, sent: Sent) -> list[ReceivedFile]:
    """The group's uploaded files in storage, checked by the kind and not kept yet (nothing
    is written to the database); none for direct uploads, which are stored already."""
    if all(name in sent.blobs for name in group.file_names):
        return []
    if any(name in sent.blobs for name in group.file_names):
        raise Refused("The files of a pair must be sent the same way.")
    kind = _kind(request, group)
    received: list[ReceivedFile] = []
    try:
        for name in group.file_names:
            received.append(_received(request, kind, name, sent.uploads[name]))
    except BaseException:
        _discard(received)
        raise
    return received


def _discard(received: Sequence[ReceivedFile]) -> None:
    for item in received:
        if item.writer.placed is None:
            item.writer.discard()


def _store(request: Request, sample_id: int, group: FileGroup, sent: Sent,
           received: list[ReceivedFile], user_id: int) -> None:
    """Keep one group in the sample: uploaded files through REST's upload operation, direct
    uploads attached as ``attachFilesToSample`` attaches them."""
    if not received:
        done = attach(request, Owner("sample", sample_id),
                      [sent.blobs[name] for name in group.file_names], user_id,
                      request.registry.get("seqcore.file_kinds", {}))
        if done.errors:
            raise Refused(" ".join(error["message"] for error in done.errors))
        return
    _obj, _stored, new = receive_upload(request, _kind(request, group), sample_id, received,
                                        [{} for _ in received], None)
    if not new:  # the same files again: what is stored already answers
        _discard(received)


def _refusal(request: Request, error: Exception) -> str:
    if isinstance(error, Refused):
        return error.message
    if isinstance(error, PageError):
        return translate(request, error.message, **error.mapping)
    if isinstance(error, HTTPException):  # a kind's own refusal, in REST's shape
        payload = getattr(error, "payload", None) or {}
        return str(payload.get("message") or payload or error)
    if isinstance(error, DomainError):
        return domain_message(request, error)
    return str(error)


REFUSALS = (Refused, PageError, HTTPException, DomainError)
#: A page answering a refused upload sent without JavaScript, given the outcomes.
RefusedPage = Callable[[list[Outcome]], Response]
Check = Callable[[FileGroup], None]
Place = Callable[[FileGroup, list[ReceivedFile]], tuple[int, str]]


def _each(request: Request, groups: Sequence[FileGroup], sent: Sent, check: Check,
          place: Place) -> list[Outcome]:
    """Keep every group where ``place`` says, or none. Each group is first checked and its
    files received without writing anything (``check``: the sample it would go to may take
    it), so every refusal is found; only when there is none are they kept, and a refusal
    then (one the database gives) stops the rest."""
    outcomes = [Outcome(group.file_names, group.sample_name) for group in groups]
    received: list[list[ReceivedFile]] = []
    for outcome, group in zip(outcomes, groups, strict=True):
        try:
            check(group)
            received.append(_receive(request, group, sent))
        except REFUSALS as error:
            outcome.problem = _refusal(request, error)
            received.append([])
    if any(outcome.problem for outcome in outcomes):
        for files in received:
            _discard(files)
        return outcomes
    for index, (outcome, group) in enumerate(zip(outcomes, groups, strict=True)):
        try:
            outcome.sample_id, outcome.sample_name = place(group, received[index])
        except REFUSALS as error:
            outcome.problem = _refusal(request, error)
            for files in received[index:]:
                _discard(files)
            break
        except BaseException:
            for files in received[index:]:
                _discard(files)
            raise
    return outcomes


def _answer(request: Request, outcomes: list[Outcome], back: str,
            refused_page: RefusedPage) -> Response:
    refused = any(outcome.problem for outcome in outcomes)
    if refused:
        # All or nothing: not one file of a refused request stays.
        request.tm.doom()
    if wants_json(request):
        response = Response(json_body={"outcomes": [o.as_json(request) for o in outcomes]},
                            status=400 if refused else 201)
        response.headers["Cache-Control"] = "no-store"
        return response
    if refused:
        return refused_page(outcomes)
    count = sum(len(outcome.files) for outcome in outcomes)
    request.session.flash(translate(request, _(
        "${count} file(s) uploaded: their QC runs now.", mapping={"count": count})))
    return HTTPSeeOther(location=back)


def upload_to_sample(request: Request, refused_page: RefusedPage) -> Response:
    """The sample's area (the sample page registers it, :mod:`seqcore.web.samples`)."""
    identity = signed_in(request)
    context = context_at(request, "samples", request.matchdict["id"])
    require(request, context, Permission.SAMPLE_WRITE)
    sample = context.sample
    sample_id, sample_name = sample.id, sample.name
    sent = _sent(request, identity.user_id)

    def place(group: FileGroup, received: list[ReceivedFile]) -> tuple[int, str]:
        _store(request, sample_id, group, sent, received, identity.user_id)
        return sample_id, sample_name

    outcomes = _each(request, group_files(sent.names), sent, lambda group: None, place)
    return _answer(request, outcomes, request.route_path("web.sample", id=sample_id),
                   refused_page)


def project_sample(request: Request, project_id: int, name: str, created: dict[str, int],
                   make: bool = True) -> int | None:
    """The sample of the project named ``name``, made when the project has none (REST's
    sample rules and words); refused if the caller may not add files to it. With ``make``
    false, only whether it could be (``None`` for one that would be made)."""
    if name in created:
        return created[name]
    found = request.db.scalar(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == project_id, ProjectSample.sample_name == name))
    if found is not None:
        context = context_at(request, "samples", str(found))
        if not may(request, context, Permission.SAMPLE_WRITE):
            raise Refused(translate(request, _("You may not add files to sample ${name}.",
                                               mapping={"name": name})))
        return int(found)
    problems = SampleSchema().validate({"sampleName": name})
    if problems:
        raise Invalid(message=" ".join(str(m) for ms in problems.values() for m in ms))
    if not make:
        return None
    sample = create_sample(request.db, project_id, SampleValues(name=name))
    request.db.flush()
    created[name] = sample.id
    return sample.id


def upload_to_project(request: Request, refused_page: RefusedPage) -> Response:
    """The project's area (the project page registers it, :mod:`seqcore.web.projects`)."""
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    require(request, context["samples"], Permission.SAMPLE_CREATE)
    project_id = context.project.id
    sent = _sent(request, identity.user_id)
    created: dict[str, int] = {}

    def check(group: FileGroup) -> None:
        project_sample(request, project_id, group.sample_name, created, make=False)

    def place(group: FileGroup, received: list[ReceivedFile]) -> tuple[int, str]:
        sample_id = project_sample(request, project_id, group.sample_name, created)
        assert sample_id is not None
        _store(request, sample_id, group, sent, received, identity.user_id)
        return sample_id, group.sample_name

    outcomes = _each(request, group_files(sent.names), sent, check, place)
    return _answer(request, outcomes, request.route_path("web.project", id=project_id),
                   refused_page)


def announce_upload(request: Request) -> Response:
    """A direct upload for the browser (``createDirectUpload``'s operation): where to
    ``PUT`` the file and with which headers; 400 with the problems in words."""
    identity = signed_in(request)
    post = request.POST
    settings = request.registry.settings
    try:
        size = int(post.get("byte_size", ""))
    except ValueError:
        size = 0
    try:
        blob = announce(request.db, identity.user_id, filename=post.get("filename", ""),
                        content_type=post.get("content_type") or "application/octet-stream",
                        checksum=post.get("checksum", ""), byte_size=size,
                        limit=int(settings["seqcore.upload.max_bytes"]),
                        max_pending=int(settings["seqcore.upload.max_pending_direct_uploads"]))
    except Invalid as error:
        request.tm.doom()
        return Response(json_body={"problem": domain_message(request, error)}, status=400)
    from seqcore.files.attachments import signed_id

    return Response(json_body={
        "url": request.route_path("api.direct_upload", key=blob.key),
        "headers": {"Content-Type": blob.content_type, "Content-MD5": blob.checksum},
        "signedBlobId": signed_id(blob)}, status=201)


def upload_area(request: Request, action: str) -> dict[str, Any]:
    """What a page's upload area needs: where the form posts, and when the browser takes
    the direct-upload path."""
    return {"action": action, "direct_bytes": direct_threshold(request),
            "announce": request.route_path("web.uploads.direct")}


def may_upload_to_sample(request: Request, context: Any) -> bool:
    return may(request, context, Permission.SAMPLE_WRITE)


def may_upload_to_project(request: Request, context: Any) -> bool:
    return may(request, context["samples"], Permission.SAMPLE_CREATE)


def includeme(config: Configurator) -> None:
    # The areas' own routes are the sample's and project's pages' (web.sample.files,
    # web.project.files), which answer a refusal with themselves.
    add_page(config, "web.uploads.direct", "/-/uploads/direct", announce_upload,
             method="POST")
    # The files come in the form: as large as REST's JSON bodies (larger ones take the
    # direct-upload path).
    allow_large_forms(config.registry, r"/-/(?:samples|projects)/\d+/files")


__all__ = ["Outcome", "Refused", "announce_upload", "direct_threshold", "may_upload_to_project",
           "may_upload_to_sample", "project_sample", "upload_area", "upload_to_project",
           "upload_to_sample"]
