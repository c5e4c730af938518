"""The storage endpoints behind IRIDA Next's direct uploads and attachment URLs.

``PUT /api/directUploads/{key}`` receives the bytes ``createDirectUpload`` announced: the
URL's key is the capability (as Active Storage's signed upload URLs), so the client sends no
other credentials, only the headers it was given. The body streams into storage as REST
uploads do (hashing as it goes, a file kind's content check for FASTQ and FASTA, never more
than the announced size); it is kept only if its size and MD5 match the announcement and the
``Content-MD5`` header, else nothing stays.

``GET /api/attachments/{id}/download?key=...`` serves an attachment's file to whoever holds
its URL (``Attachment.attachmentUrl``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from pyramid.request import Request
from pyramid.response import Response

from seqcore.errors.domain import Invalid
from seqcore.files.attachments import blob_by_key, complete_upload
from seqcore.files.directuploads import content_check, md5_base64
from seqcore.files.uploads import BadContent, ReceivedFile
from seqcore.framework.contrib import Endpoint, View
from seqcore.models.attachment import Attachment
from seqcore.parsing.identifiers import parse_id
from seqcore.rest.bodyreader import body_reader
from seqcore.rest.errors import ApiError
from seqcore.rest.storedfiles import stored_file_response
from seqcore.storage.service import FileTooLarge, StorageError

BLOCK = 1 << 20


def put_upload(request: Request) -> Response:
    blob = blob_by_key(request.db, request.matchdict["key"])
    if blob is None or not request.storage.is_local:  # object stores take the PUT themselves
        raise ApiError(404, message="No such upload: the URL is not one createDirectUpload "
                                    "gave.")
    if blob.file_id is not None:
        raise ApiError(409, message="This upload has already been received.")
    sent_md5 = request.headers.get("Content-MD5")
    if sent_md5 is not None and md5_base64(sent_md5) != md5_base64(blob.checksum):
        raise ApiError(400, message="Content-MD5 differs from the checksum given to "
                                    "createDirectUpload.")
    length = request.content_length
    if length is not None and length != blob.byte_size:
        raise ApiError(400, message=f"The body has {length} bytes; createDirectUpload "
                                    f"announced {blob.byte_size}.")
    writer = request.storage.writer(blob.filename, limit=blob.byte_size)
    check = content_check(request.registry.settings, blob.filename, blob.byte_size)
    md5 = hashlib.md5(usedforsecurity=False)
    try:
        stream = body_reader(request)
        while block := stream.read(BLOCK):
            writer.write(block)
            md5.update(block)
            if check is not None:
                check.feed(block)
        writer.close()
        if writer.size != blob.byte_size:
            raise ApiError(400, message=f"The body has {writer.size} bytes; "
                                        f"createDirectUpload announced {blob.byte_size}.")
        expected = md5_base64(blob.checksum)
        if expected is None or not hmac.compare_digest(md5.digest(), expected):
            raise ApiError(400, message="The body's MD5 differs from the checksum given to "
                                        f"createDirectUpload ({blob.checksum}); got "
                                        f"{base64.b64encode(md5.digest()).decode()}.")
        if check is not None:
            try:
                check.finish()
            except BadContent as err:
                raise ApiError(400, message=f"{blob.filename}: {err}") from None
        complete_upload(request.db, request.tm, blob, ReceivedFile(blob.filename, writer))
    except FileTooLarge:
        writer.discard()
        raise ApiError(400, message=f"The body is larger than the {blob.byte_size} bytes "
                                    "createDirectUpload announced.") from None
    except StorageError as err:
        writer.discard()
        raise ApiError(507, message=f"The upload could not be stored: {err}") from None
    except BadContent as err:
        writer.discard()
        raise ApiError(400, message=f"{blob.filename}: {err}") from None
    except Invalid as err:
        writer.discard()
        raise ApiError(409, message=err.message) from None
    except BaseException:
        writer.discard()
        raise
    finally:
        close = getattr(check, "close", None)
        if close is not None:
            close()
    return Response(status=204)


def download_attachment(request: Request) -> Response:
    pk = parse_id(request.matchdict["id"])
    attachment = request.db.get(Attachment, pk) if pk is not None else None
    key = request.params.get("key", "")
    if attachment is None or not hmac.compare_digest(attachment.download_key.encode(),
                                                     key.encode()):
        raise ApiError(404, message="No such attachment, or the URL's key is wrong.")
    return stored_file_response(request, attachment.file.path, attachment.file.file_name,
                                "application/octet-stream")


ENDPOINTS = [
    Endpoint("api.direct_upload", "/api/directUploads/{key}", {
        "PUT": View(put_upload, renderer=None),
    }, traverse="/api", description="The bytes of a direct upload (GraphQL "
                                    "createDirectUpload's url and headers); the URL is the "
                                    "credential."),
    Endpoint("api.attachment.download", "/api/attachments/{id:\\d+}/download", {
        "GET": View(download_attachment, renderer=None),
    }, traverse="/api", description="An attachment's file (GraphQL Attachment.attachmentUrl);"
                                    " the URL's key is the credential."),
]
