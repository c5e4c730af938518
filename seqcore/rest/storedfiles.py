"""Answering a download of a stored file, whichever backend holds it.

From a local directory the file is sent as today (``FileResponse``: ranges, conditional
requests, ``sendfile`` where the server has it). From an object store the answer is, by
default, ``303 See Other`` to a signed URL of the store that lives
``seqcore.storage.signed_url_seconds``: the bytes go from the store to the client and never
through seqcore. The signed URL is the credential, so the redirect is never cached
(``Cache-Control: no-store``). seqcore streams the object itself instead when
``seqcore.storage.downloads = stream`` (a store clients cannot reach) or when the request asks
with ``?stream=1`` (a client that cannot follow redirects, or must not send the store its
own ``Authorization`` header: HTTP clients drop it on a redirect to another host, but some
do not).
"""

from __future__ import annotations

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import FileIter, FileResponse, Response

from seqcore.files.disposition import content_disposition
from seqcore.rest.errors import ApiError
from seqcore.storage.service import StorageError

STREAM_PARAM = "stream"


def wants_stream(request: Request) -> bool:
    """Whether this download is streamed through seqcore rather than redirected."""
    if request.params.get(STREAM_PARAM, "").lower() in ("1", "true", "yes"):
        return True
    return request.registry.settings.get("seqcore.storage.downloads") == "stream"


def stored_file_response(request: Request, relative: str, file_name: str,
                         media_type: str) -> Response:
    """The answer to a download of the stored file ``relative``, named ``file_name``."""
    storage = request.storage
    if storage.is_local:
        response = FileResponse(str(storage.path(relative)), request=request,
                                content_type=media_type)
    elif not wants_stream(request):
        url = storage.signed_url(relative, "GET")
        response = HTTPSeeOther(location=url)
        response.cache_control = "no-store"
        return response
    else:
        size = storage.size(relative)
        if size is None:
            raise ApiError(404, message=f"{file_name} is missing from storage.")
        try:
            handle = storage.open(relative)
        except StorageError as err:
            raise ApiError(404, message=str(err)) from None
        response = Response(app_iter=FileIter(handle), content_type=media_type,
                            content_length=size)
    response.content_disposition = content_disposition(file_name)
    return response
