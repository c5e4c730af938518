"""Line lists: one row per sample of a project, one column per metadata field (a template's
fields in order, or every field the caller may read), as CSV, TSV or XLSX.

:func:`linelist_columns` decides the columns (field restrictions honoured:
:func:`seqcore.security.fieldaccess.readable_fields`); :func:`linelist_rows` reads the rows with a
streaming cursor, one sample at a time; :func:`write_linelist` writes a whole line list to a
binary file (:func:`write_rows`, the writer under it, also writes a data export's line list
of its chosen samples) and :func:`linelist_chunks` yields
it as bytes for a streamed response. Memory stays flat whatever the number of samples:
delimited text is written in batches, XLSX through openpyxl's write-only workbook (rows go to
a temporary file as they are appended).

A line list is opened in a spreadsheet, which runs a cell beginning with ``=``, ``+``, ``-``
or ``@`` (and, after a TAB or CR, what follows) as a formula: metadata is anyone's text, so
such a value is neutralised (OWASP's CSV injection advice). Delimited text gets a leading
``'`` (shown by spreadsheets, never run); an XLSX cell is written as a string cell, which no
spreadsheet evaluates, so the value there stays exactly what was stored.

A GraphQL client gets a download link instead (:func:`sign_download`): a short-lived token
naming the account, project, template and format, signed with the application's secret, so
the link works without the client's credentials and for no one else's rows.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import io
import json
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.samples.metadatafields import find_template, template_columns
from seqcore.security.fieldaccess import ALL, Caller, FieldAccess, readable_fields

FORMATS = {"csv": "text/csv", "tsv": "text/tab-separated-values",
           "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
#: The columns before the fields.
FIXED = ("sample_puid", "sample_name")
BATCH = 500
#: First characters a spreadsheet would read as the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CHUNK = 64 * 1024
LINK_SECONDS = 600


@dataclass(frozen=True)
class LineList:
    """What a line list holds: the project, its field columns (readable ones only), and the
    reader's access there (which also hides, cell by cell, a field another project holding a
    sample restricts above the reader)."""

    project_id: int
    columns: tuple[str, ...]
    access: FieldAccess = ALL

    @property
    def header(self) -> list[str]:
        return [*FIXED, *self.columns]


def check_format(fmt: str | None) -> str:
    fmt = (fmt or "csv").lower()
    if fmt not in FORMATS:
        raise Invalid.field("format", f"One of: {', '.join(FORMATS)}.")
    return fmt


def linelist_columns(db: Session, caller: Caller, project_id: int,
                     template: str | None = None) -> LineList:
    """The line list of a project for ``caller``: a template's fields (by id or name; a
    404 if the project has none by that key) or every field a sample of the project holds,
    in name order; either way without the fields the caller may not read."""
    access = readable_fields(db, caller, project_id)
    if template:
        columns = template_columns(find_template(db, project_id, template), access)
    else:
        names = db.scalars(
            select(MetadataEntry.field).distinct()
            .join(ProjectSample, ProjectSample.sample_id == MetadataEntry.sample_id)
            .where(ProjectSample.project_id == project_id, access.entries())
            .order_by(MetadataEntry.field))
        columns = access.visible(names)
    return LineList(project_id, tuple(columns), access)


def linelist_rows(bind: Any, linelist: LineList) -> Iterator[list[str]]:
    """The rows (without the header), samples in id order, read with a streaming cursor on
    ``bind`` (a session or a connection)."""
    position = {name: index for index, name in enumerate(linelist.columns, len(FIXED))}
    shown = and_(MetadataEntry.sample_id == Sample.id, linelist.access.entries())
    shown = and_(shown, MetadataEntry.field.in_(linelist.columns)) if linelist.columns else (
        and_(shown, MetadataEntry.id.is_(None)))
    query = (select(Sample.id, Sample.puid, Sample.name, MetadataEntry.field,
                    MetadataEntry.value)
             .join(ProjectSample, ProjectSample.sample_id == Sample.id)
             .outerjoin(MetadataEntry, shown)
             .where(ProjectSample.project_id == linelist.project_id)
             .order_by(Sample.id)
             .execution_options(stream_results=True, yield_per=2000))
    width = len(FIXED) + len(linelist.columns)
    current: list[str] | None = None
    current_id = None
    for sample_id, puid, name, field, value in bind.execute(query):
        if sample_id != current_id:
            if current is not None:
                yield current
            current, current_id = [""] * width, sample_id
            current[0], current[1] = puid or "", name
        if field is not None:
            current[position[field]] = value  # type: ignore[index]
    if current is not None:
        yield current


def inert(value: str) -> str:
    """``value`` as delimited text a spreadsheet shows and never runs."""
    return "'" + value if value[:1] in FORMULA_STARTS else value


def _delimited(rows: Iterable[list[str]], delimiter: str) -> Iterator[bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    for count, row in enumerate(rows, 1):
        writer.writerow([inert(value) for value in row])
        if count % BATCH == 0:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode()


def _xlsx(rows: Iterable[list[str]], out: IO[bytes]) -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("linelist")
    for row in rows:
        sheet.append([_text_cell(sheet, WriteOnlyCell, value) for value in row])
    workbook.save(out)


def _text_cell(sheet: Any, cell_type: Any, value: str) -> Any:
    """A cell holding ``value`` as text: openpyxl makes a formula of a string beginning with
    ``=``, so such a cell is marked a string cell again after the value is set."""
    cell = cell_type(sheet, value=value)
    if value[:1] in FORMULA_STARTS:
        cell.data_type = "s"
    return cell


def _with_header(linelist: LineList, rows: Iterable[list[str]]) -> Iterator[list[str]]:
    yield linelist.header
    yield from rows


def write_rows(rows: Iterable[list[str]], fmt: str, out: IO[bytes]) -> None:
    """Write ``rows`` (the header first) to ``out`` (a binary file) as ``fmt``: the one
    writer of line lists, whoever chose the rows (a project's, an export's samples)."""
    if fmt == "xlsx":
        _xlsx(rows, out)
        return
    for chunk in _delimited(rows, "\t" if fmt == "tsv" else ","):
        out.write(chunk)


def write_linelist(bind: Any, linelist: LineList, fmt: str, out: IO[bytes]) -> None:
    """Write the whole line list to ``out`` (a binary file)."""
    write_rows(_with_header(linelist, linelist_rows(bind, linelist)), fmt, out)


def linelist_chunks(bind: Any, linelist: LineList, fmt: str) -> Iterator[bytes]:
    """The line list as bytes, produced as it is read (XLSX: written to a temporary file
    first, since a workbook is a zip archive, then read back in chunks)."""
    if fmt != "xlsx":
        yield from _delimited(_with_header(linelist, linelist_rows(bind, linelist)),
                              "\t" if fmt == "tsv" else ",")
        return
    with tempfile.TemporaryFile() as spool:
        write_linelist(bind, linelist, fmt, spool)
        spool.seek(0)
        while chunk := spool.read(CHUNK):
            yield chunk


def file_name(project_path: str, fmt: str) -> str:
    return f"{project_path}-linelist.{fmt}"


# -- download links ----------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_download(secret: str, user_id: int, project_id: int, template: str | None,
                  fmt: str, now: float | None = None) -> str:
    """A token for one line list download by ``user_id``, valid :data:`LINK_SECONDS`."""
    payload = {"u": user_id, "p": project_id, "t": template, "f": fmt,
               "e": int((now or time.time()) + LINK_SECONDS)}
    body = _b64(json.dumps(payload, separators=(",", ":")).encode())
    mac = hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()
    return f"{body}.{_b64(mac)}"


def verify_download(secret: str, token: str, now: float | None = None) -> dict[str, Any] | None:
    """The payload of a valid, unexpired token; ``None`` otherwise."""
    body, _, mac = token.partition(".")
    expected = _b64(hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest())
    if not mac or not hmac.compare_digest(mac, expected):
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        return None
    if not isinstance(payload, dict) or payload.get("e", 0) < (now or time.time()):
        return None
    return payload


__all__ = ["FORMATS", "LineList", "check_format", "file_name", "linelist_chunks",
           "linelist_columns", "linelist_rows", "sign_download", "verify_download",
           "write_linelist"]
