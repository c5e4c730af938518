"""Spreadsheet imports: samples and their metadata from a CSV, TSV or XLSX sheet into a
project, as IRIDA Next's batch sample import and metadata file import do.

The sheet's first row names the columns. One column names the sample (by name, or by PUID
for an existing sample), an optional one holds a new sample's description, and every other
column is a metadata field. A row naming a sample the project holds updates its metadata; a
row naming none creates the sample (unless creation is turned off), under REST's rule for
names.

Every row is checked before anything is written, and every problem is reported with its
sheet row (the header is row 1) and column, in the words REST uses: a bad name, a name twice,
a sample the caller may not change, a field above the caller's metadata level, a value that
breaks a project's declaration. Then, as the caller chose:

* a dry run writes nothing and reports what would be created and updated;
* ``all`` (all or nothing) writes nothing when any row has a problem;
* ``row`` (per row) writes each valid row in a savepoint of its own and reports the rest.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from marshmallow import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.errors.domain import DomainError, Invalid
from seqcore.framework.contrib import MetadataType
from seqcore.models.puid import SAMPLE as SAMPLE_KIND
from seqcore.models.puid import is_puid
from seqcore.models.sample import ProjectSample, Sample
from seqcore.parsing.schemas import SampleSchema
from seqcore.samples.metadata import metadata_changes, set_metadata
from seqcore.samples.metadatafields import check_values
from seqcore.samples.samples import create_sample
from seqcore.security.access import SAMPLE
from seqcore.security.fieldaccess import Caller, FieldAccess, check_writable, readable_fields
from seqcore.security.permissions import Permission

MODES = ("all", "row")
MAX_ROWS = 100_000
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@dataclass(frozen=True)
class Problem:
    """What is wrong with one row (``row`` 1 is the header) and, where it is one cell's
    fault, which column."""

    row: int
    column: str | None
    message: str

    def as_json(self) -> dict[str, Any]:
        return {"row": self.row, "column": self.column, "message": self.message}


@dataclass
class ImportReport:
    """What an import did (or, in a dry run, would do)."""

    rows: int
    dry_run: bool
    mode: str
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return not self.dry_run and bool(self.created or self.updated)

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "dryRun": self.dry_run, "mode": self.mode,
                "created": self.created, "updated": self.updated,
                "problems": [p.as_json() for p in self.problems]}


class ImportRefused(DomainError):
    """An all-or-nothing import with problems: nothing was written (the report says why)."""

    default_message = "The sheet has problems; nothing was imported."

    def __init__(self, report: ImportReport) -> None:
        super().__init__(f"The sheet has {len(report.problems)} problem(s); nothing was "
                         "imported.")
        self.report = report


# -- reading the sheet ---------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == datetime.min.time() \
            else value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def read_sheet(data: bytes, filename: str = "") -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV, TSV or XLSX sheet (the first worksheet), every
    cell as text; :class:`Invalid` for a sheet that cannot be read or is empty."""
    if data[:4] == b"PK\x03\x04" or filename.lower().endswith(".xlsx"):
        table = _xlsx(data)
    else:
        table = _delimited(data, filename)
    table = [row for row in table if any(cell for cell in row)]
    if not table:
        raise Invalid(message="The sheet is empty: its first row must name the columns.")
    if len(table) - 1 > MAX_ROWS:
        raise Invalid(message=f"The sheet has {len(table) - 1} rows; at most {MAX_ROWS} "
                              "are imported at once.")
    header = table[0]
    width = len(header)
    return header, [(row + [""] * width)[:width] if len(row) <= width else row
                    for row in table[1:]]


def _xlsx(data: bytes) -> list[list[str]]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as err:
        raise Invalid(message=f"The file is not a readable XLSX workbook ({err}).") from None
    try:
        sheet = book.worksheets[0]
        return [[_cell(value) for value in row] for row in sheet.iter_rows(values_only=True)]
    finally:
        book.close()


def _delimited(data: bytes, filename: str) -> list[list[str]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Invalid(message="The file is not UTF-8 text, CSV or TSV, nor an XLSX "
                              "workbook.") from None
    if "\x00" in text:
        raise Invalid(message="The file holds a NUL character: it is not a CSV or TSV sheet.")
    first = text.split("\n", 1)[0]
    delimiter = "\t" if filename.lower().endswith(".tsv") or "\t" in first else ","
    return [[cell.strip() for cell in row]
            for row in csv.reader(io.StringIO(text), delimiter=delimiter)]


# -- checking and writing ------------------------------------------------------------------------


@dataclass
class _Row:
    number: int
    name: str
    sample: Sample | None
    description: str | None
    entries: dict[str, tuple[str, str]]
    deletions: set[str]


def _name_problems(name: str) -> list[str]:
    try:
        SampleSchema().load({"sampleName": name}, partial=True)
    except ValidationError as err:
        messages = err.messages.get("sampleName", []) if isinstance(err.messages, dict) else []
        return [str(m) for m in messages] or ["The sample name is not valid."]
    return []


def import_sheet(db: Session, project_id: int, header: Sequence[str],
                 rows: Sequence[Sequence[str]], *, caller: Caller,
                 types: Mapping[str, MetadataType], sample_column: str = "sample_name",
                 description_column: str | None = None, create: bool = True,
                 mode: str = "all", dry_run: bool = False,
                 ignore_empty: bool = True) -> ImportReport:
    """Import ``rows`` into project ``project_id`` (module docstring). Raises
    :class:`Invalid` for a request that cannot start (an unknown mode or a missing column)
    and :class:`ImportRefused` for an all-or-nothing import with problems."""
    if mode not in MODES:
        raise Invalid({"mode": [f"The mode must be one of {', '.join(MODES)}."]})
    columns = [c.strip() for c in header]
    problems: dict[str, list[str]] = {}
    if sample_column not in columns:
        problems["sampleColumn"] = [f"The sheet has no column {sample_column!r}; its columns "
                                    f"are {', '.join(repr(c) for c in columns)}."]
    if description_column and description_column not in columns:
        problems["descriptionColumn"] = [f"The sheet has no column {description_column!r}."]
    if problems:
        raise Invalid(problems)
    report = ImportReport(rows=len(rows), dry_run=dry_run, mode=mode)
    seen_columns: set[str] = set()
    for position, column in enumerate(columns):
        if not column:
            report.problems.append(Problem(1, None, f"Column {position + 1} has no name."))
        elif column in seen_columns:
            report.problems.append(Problem(1, column, f"Column {column!r} appears twice."))
        seen_columns.add(column)
    if report.problems:  # the header itself is wrong: no row can be read
        if dry_run:
            return _finish(report)
        raise ImportRefused(_finish(report))
    metadata_columns = [c for c in columns if c not in (sample_column, description_column)]
    index = {column: position for position, column in enumerate(columns)}

    existing = _samples_named(db, project_id, [row[index[sample_column]] for row in rows])
    writable = _writable(db, caller, [s.id for s in existing.values()])
    access = readable_fields(db, caller, project_id)  # what a new sample's fields may be
    checked: list[_Row] = []
    names_seen: dict[str, int] = {}
    for offset, row in enumerate(rows):
        number = offset + 2
        if len(row) > len(columns):
            report.problems.append(Problem(number, None, f"The row has {len(row)} cells; the "
                                                         f"header names {len(columns)}."))
            continue
        name = row[index[sample_column]].strip()
        if not name:
            report.problems.append(Problem(number, sample_column, "The sample is not named."))
            continue
        if name in names_seen:
            report.problems.append(Problem(number, sample_column, f"{name} is also on row "
                                                                  f"{names_seen[name]}."))
            continue
        names_seen[name] = number
        sample = existing.get(name)
        row_problems: list[Problem] = []
        if sample is None:
            if is_puid(name, SAMPLE_KIND):
                row_problems.append(Problem(number, sample_column,
                                            f"No sample {name} in the project."))
            elif not create:
                row_problems.append(Problem(number, sample_column,
                                            f"No sample named {name} in the project."))
            else:
                row_problems.extend(Problem(number, sample_column, m)
                                    for m in _name_problems(name))
        elif sample.id not in writable:
            row_problems.append(Problem(number, sample_column,
                                        f"You may not change sample {sample.name}."))
        body = {column: {"value": row[index[column]]} for column in metadata_columns
                if not (ignore_empty and row[index[column]] == "")}
        entries: dict[str, tuple[str, str]] = {}
        deletions: set[str] = set()
        try:
            entries, deletions = metadata_changes(body, types, allow_delete=True)
        except Invalid as err:
            row_problems.extend(Problem(number, column, message)
                                for column, messages in err.problems.items()
                                for message in messages)
        if not row_problems:
            row_problems.extend(_field_problems(db, caller, project_id, access, sample,
                                                number, entries, deletions))
        if row_problems:
            report.problems.extend(row_problems)
            continue
        description = (row[index[description_column]] or None) if description_column else None
        checked.append(_Row(number, name, sample, description, entries, deletions))

    if dry_run:
        for item in checked:
            (report.updated if item.sample is not None else report.created).append(item.name)
        return _finish(report)
    if report.problems and mode == "all":
        raise ImportRefused(_finish(report))
    for item in checked:
        savepoint = db.begin_nested()
        try:
            sample = item.sample
            if sample is None:
                sample = create_sample(db, project_id, {"name": item.name,
                                                        "description": item.description})
                db.flush()
            if item.entries or item.deletions:
                set_metadata(db, [sample], [(item.entries, item.deletions)], caller=caller)
            db.flush()
        except DomainError as err:
            savepoint.rollback()
            report.problems.append(Problem(item.number, None, err.message))
            if mode == "all":
                raise ImportRefused(_finish(report)) from None
            continue
        savepoint.commit()
        (report.updated if item.sample is not None else report.created).append(item.name)
    return _finish(report)


def _finish(report: ImportReport) -> ImportReport:
    report.problems.sort(key=lambda p: (p.row, p.column or ""))
    return report


def _samples_named(db: Session, project_id: int, names: Sequence[str]) -> dict[str, Sample]:
    """The project's samples the sheet names, by the name or PUID it uses."""
    wanted = {name.strip() for name in names if name.strip()}
    if not wanted:
        return {}
    found: dict[str, Sample] = {}
    rows = db.execute(select(ProjectSample.sample_name, Sample)
                      .join(Sample, Sample.id == ProjectSample.sample_id)
                      .where(ProjectSample.project_id == project_id,
                             (ProjectSample.sample_name.in_(wanted))
                             | (Sample.puid.in_(wanted))))
    for name, sample in rows:
        found[name if name in wanted else sample.puid] = sample
    return found


def _writable(db: Session, caller: Caller, sample_ids: list[int]) -> set[int]:
    """Of ``sample_ids``, those the caller may change (:data:`seqcore.security.access.SAMPLE`)."""
    if not sample_ids:
        return set()
    if caller.user_id is None:  # the service itself
        return set(sample_ids)
    return set(db.scalars(select(Sample.id).where(
        Sample.id.in_(sample_ids),
        SAMPLE.condition(Permission.SAMPLE_WRITE, caller.user_id, caller.role))))


def _field_problems(db: Session, caller: Caller, project_id: int, access: FieldAccess,
                    sample: Sample | None, number: int, entries: dict[str, tuple[str, str]],
                    deletions: set[str]) -> list[Problem]:
    """A field above the caller's level, or a value breaking a declaration, as problems."""
    problems: list[Problem] = []
    if sample is not None:
        try:
            check_writable(db, caller, [sample.id], set(entries) | deletions)
        except DomainError as err:
            problems.append(Problem(number, None, err.message))
    else:  # a new sample is in the project alone: its declarations decide
        hidden = sorted(f for f in entries if not access.can_read(f))
        if hidden:
            problems.append(Problem(number, None, "Your metadata role does not allow writing "
                                                  "the field(s) " + ", ".join(hidden) + "."))
    projects = [project_id] if sample is None else list(db.scalars(
        select(ProjectSample.project_id).where(ProjectSample.sample_id == sample.id)))
    try:
        check_values(db, projects, entries)
    except Invalid as err:
        problems.extend(Problem(number, column, message)
                        for column, messages in err.problems.items() for message in messages)
    return problems


__all__ = ["MODES", "XLSX", "ImportRefused", "ImportReport", "Problem", "import_sheet",
           "read_sheet"]
