"""Reading uploads off the wire: a streaming ``multipart/form-data`` body becomes files in
storage (:mod:`seqcore.rest.multipart`), which the domain keeps (:mod:`seqcore.files.uploads`).

The part names (``file``, or ``file1``/``file2`` for a pair, and their ``parameters``), the
JSON of the parameters and the run id in them are REST's wire format; deciding what is kept
(an open run, an identical upload already stored) is the domain's. A refused upload leaves
no file behind.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyramid.request import Request

from seqcore.files.contentchecks import verify_gzip
from seqcore.files.uploads import receive_upload, run_for_upload, store_file
from seqcore.framework.contrib import FileKind
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingRun
from seqcore.parsing.identifiers import parse_id
from seqcore.parsing.jsontext import JSONInputError, decode_json
from seqcore.resources.runs import RunResource
from seqcore.rest.errors import ApiError
from seqcore.rest.multipart import Part, Upload, parse_upload
from seqcore.security.permissions import Permission
from seqcore.storage.service import StorageError

RUN_KEYS = ("miseqRunId", "sequencingRunId")


def _parameters(part: Part | None) -> dict[str, Any]:
    if part is None:
        return {}
    try:
        data = decode_json(bytes(part.data) or b"{}", None)
    except JSONInputError as err:
        raise ApiError(400, message=f"The part '{part.name}': {err.message}") from None
    except json.JSONDecodeError:
        raise ApiError(400, message=f"The part '{part.name}' is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, message=f"The part '{part.name}' must be a JSON object.")
    for key, value in data.items():
        if isinstance(value, dict | list):
            raise ApiError(400, message=f"'{key}' in '{part.name}' must be a string or a "
                                        "number.")
    return data


def _run_id(params: dict[str, Any]) -> int | None:
    for key in RUN_KEYS:
        value = params.get(key)
        if value not in (None, ""):
            run_id = parse_id(value) if isinstance(value, int | str) else None
            if run_id is None:
                raise ApiError(400, message=f"'{key}' must be a sequencing run id.")
            return run_id
    return None


def _properties(params: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in params.items() if k not in RUN_KEYS and v is not None}


def _expected_parts(kind: FileKind) -> tuple[list[str], list[str]]:
    if kind.files == 1:
        return ["file"], ["parameters"]
    names = [f"file{i}" for i in range(1, kind.files + 1)]
    return names, [f"parameters{i}" for i in range(1, kind.files + 1)]


def _may_see(request: Request, run: SequencingRun) -> bool:
    runs = request.root["api"]["sequencingrun"]
    run_ctx = RunResource(request, str(run.id), runs, run)
    return (request.has_permission(Permission.RUN_READ, run_ctx)
            or request.has_permission(Permission.RUN_UPDATE, run_ctx))


def receive(request: Request, kind: FileKind, sample_id: int) -> tuple[SequencingObject,
                                                                        list[SequenceFile]]:
    """Stream an upload of ``kind`` into storage and record it (:func:`receive_upload`);
    nothing stays on failure."""
    settings = request.registry.settings
    limit = int(settings["seqcore.upload.max_bytes"])
    file_names, param_names = _expected_parts(kind)
    # The kind's check sees the verification this upload gets (it depends on its size).
    check_settings = {**settings, "seqcore.upload.verify_gzip": verify_gzip(
        settings, request.content_length)}

    def check_for(part_name: str, file_name: str) -> Any:
        if part_name not in file_names or kind.content_check is None:
            return None
        return kind.content_check(check_settings)

    upload: Upload = parse_upload(request, request.storage, limit, check_for,
                                  file_parts=file_names, small_parts=param_names)
    try:
        allowed = set(file_names) | set(param_names)
        unexpected = sorted(set(upload.parts) - allowed)
        if unexpected:
            raise ApiError(400, message=f"Unexpected part(s) {', '.join(unexpected)}; this "
                                        f"upload takes {', '.join(sorted(allowed))}.")
        missing = [name for name in file_names if upload.file(name) is None]
        if missing:
            raise ApiError(400, message="Missing file part(s): " + ", ".join(missing) + ".")
        params = [_parameters(upload.parts.get(name)) for name in param_names]
        try:
            run = run_for_upload(request.db, [_run_id(p) for p in params],
                                 lambda run: _may_see(request, run))
            obj, stored, new = receive_upload(
                request, kind, sample_id, [upload.received(name) for name in file_names],
                [_properties(p) for p in params], run, upload)
        except StorageError as err:
            raise _not_stored(err) from None
        if not new:
            # The same files again (a client retrying, or re-running an upload): answer with
            # what is already stored instead of keeping a second copy.
            upload.discard()
        return obj, stored
    except BaseException:
        upload.discard()
        raise


def _not_stored(err: StorageError) -> ApiError:
    """507: the file system refused a received file."""
    return ApiError(507, message=f"The upload could not be stored: {err}")


def receive_file(request: Request, check: Callable[[], Any],
                 inspect: Callable[[Path], None] | None = None) -> SequenceFile:
    """A multipart upload of one file part named ``file`` (a ``parameters`` part is accepted
    and ignored, as IRIDA's uploader sends one), streamed into storage through ``check`` and
    kept by :func:`seqcore.files.uploads.store_file`.

    ``inspect(path)`` may look at the whole received file and raise (a domain error, or
    :class:`~seqcore.rest.errors.ApiError`) before it is kept. Returns the (unsaved)
    :class:`SequenceFile`; the stored file goes again if the request's transaction aborts.
    """
    limit = int(request.registry.settings["seqcore.upload.max_bytes"])
    upload = parse_upload(request, request.storage, limit,
                          lambda part, name: check() if part == "file" else None,
                          file_parts=["file"], small_parts=["parameters"])
    try:
        unexpected = sorted(set(upload.parts) - {"file", "parameters"})
        if unexpected:
            raise ApiError(400, message=f"Unexpected part(s) {', '.join(unexpected)}; this "
                                        "upload takes file (and parameters).")
        if upload.file("file") is None:
            raise ApiError(400, message="Missing file part(s): file.")
        try:
            return store_file(request.tm, upload.received("file"), inspect)
        except StorageError as err:
            raise _not_stored(err) from None
    except BaseException:
        upload.discard()
        raise
