"""``Content-Disposition`` for downloads (RFC 6266), whatever the stored file's name.

A file keeps the name its client gave it, and that name may hold anything but ``/`` and NUL:
letters outside Latin-1, quotes, semicolons, control characters, CR or LF. Written straight
into a quoted ``filename`` such a name either cannot be sent (a WSGI header must be Latin-1
and free of line breaks) or adds parameters of the client's choosing. Every download
therefore names its file the RFC 6266 way: ``filename*=UTF-8''`` with the name
percent-encoded (RFC 8187), which carries any name exactly, and a plain ``filename`` made of
printable ASCII for clients that do not read the extended form.

The standard library's ``urllib.parse.quote`` does the encoding; no package adds more than
these few lines would.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

# RFC 8187 attr-char, less ALPHA / DIGIT (``quote`` keeps those anyway).
_ATTR_CHAR_PUNCTUATION = "!#$&+-.^_`|~"


def ascii_fallback(file_name: str) -> str:
    """The name in printable ASCII, for the plain ``filename`` parameter.

    Accents are dropped (``é`` becomes ``e``); anything else outside printable ASCII, and
    ``"``, ``\\`` and ``%`` (which some clients decode), becomes ``_``.
    """
    decomposed = unicodedata.normalize("NFKD", file_name)
    out = []
    for char in decomposed:
        if unicodedata.combining(char):
            continue
        if " " <= char <= "~" and char not in '"\\%':
            out.append(char)
        else:
            out.append("_")
    return "".join(out).strip() or "download"


def content_disposition(file_name: str, disposition: str = "attachment") -> str:
    """The header value naming ``file_name``: ``attachment; filename="..."; filename*=...``.

    The value never holds a line break, a quote inside the quoted string, or a parameter
    other than these two, whatever ``file_name`` holds.
    """
    encoded = quote(file_name, safe=_ATTR_CHAR_PUNCTUATION, encoding="utf-8",
                    errors="surrogatepass")
    return (f'{disposition}; filename="{ascii_fallback(file_name)}"; '
            f"filename*=UTF-8''{encoded}")
