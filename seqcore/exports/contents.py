"""What goes into a data export: the stored files of the samples and analyses selected, and
the line list of the samples' metadata.

Layout of the bundle (every path under one top directory, ``seqcore-export-<id>/``)::

    samples/<sample PUID>_<sample name>/<kind>/<object or row id>/<file name>
    analyses/<submission id>_<submission name>/<output key>/<file name>
    linelist.csv
    manifest.json            (last: path, size and SHA-256 of every other entry)

File kinds are the registered sequencing-object kinds (``pairs``, ``unpaired``, ``fast5``:
their processed objects) and the plugin tables that attach stored files to samples (a
foreign key to ``sample.id`` and one to ``sequence_file.id``, as the assemblies plugin's),
named by ``__table_args__ = {"info": {EXPORT_NAME: "assemblies"}}`` or else by the table.

**Field restrictions.** The line list reads sample metadata through one function only,
:func:`export_metadata_rows`, for the export's requester as it is when the bundle is built:
governance's rule (:func:`seqcore.security.fieldaccess.readable_fields`) decides the columns, so an
export never holds a field its requester may not read, and the line-list writer
(:func:`seqcore.samples.linelist.write_rows`) writes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import NotFound
from seqcore.models.analysis import AnalysisOutput, AnalysisSubmission
from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.models.sequencing import (
    ProcessingState,
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
)
from seqcore.projects.projecthash import hashed_attachments
from seqcore.samples.linelist import write_rows
from seqcore.samples.metadatafields import find_template, template_columns
from seqcore.security.fieldaccess import OPEN, Caller, FieldAccess, readable_fields

#: ``Table.info`` key naming a plugin table's files in exports (``assemblies``).
EXPORT_NAME = "seqcore.export_name"

#: Samples read per statement while planning or writing the line list.
BATCH = 500

#: The line list's first columns (IRIDA Next's line-list headers), then the fields.
LINELIST_COLUMNS = ("SAMPLE ID", "SAMPLE NAME", "PROJECT ID")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_segment(text: str, limit: int = 80) -> str:
    """A path segment any unzip tool writes as is: runs of other characters become ``_``,
    never ``.``/``..``, at most ``limit`` characters."""
    cleaned = _UNSAFE.sub("_", text).strip("._")[:limit]
    return cleaned or "_"


def file_tables(registry: Any) -> dict[str, tuple[Table, list[Any], list[Any]]]:
    """Export name -> (plugin table, its sample foreign-key columns, its stored-file
    foreign-key columns), for the tables that attach stored files to samples."""
    found: dict[str, tuple[Table, list[Any], list[Any]]] = {}
    for table in hashed_attachments(registry):
        # Declarative classes annotate __table__ as a FromClause; these are mapped to tables.
        files = [fk.parent for fk in table.foreign_keys
                 if fk.references(cast(Table, SequenceFile.__table__))]
        samples = [fk.parent for fk in table.foreign_keys
                   if fk.references(cast(Table, Sample.__table__))]
        if files and samples:
            found[str(table.info.get(EXPORT_NAME, table.name))] = (table, samples, files)
    return found


def export_kinds(registry: Any) -> list[str]:
    """Every file kind an export may name: the sequencing-object kinds and the plugin
    tables of sample files."""
    kinds = {kind.name for kind in registry.get("seqcore.file_kinds", {}).values()}
    return sorted(kinds | set(file_tables(registry)))


# -- the metadata, for the requester --------------------------------------------------------


def template_fields(db: Session, caller: Any, project: Project, template: int | str
                    ) -> list[str] | None:
    """The ordered fields of the project's metadata template ``template`` (its id or its
    name, as line lists take it) that ``caller`` (who asks, with its ``identity``) may read,
    or ``None`` when the project has no such template."""
    try:
        found = find_template(db, project.id, str(template))
    except NotFound:
        return None
    access = readable_fields(db, Caller.of(caller.identity), project.id)
    return template_columns(found, access)


#: The reader of an export whose requester's account is gone: it reads open fields only, on
#: every project holding a sample (no account has id 0).
GONE = Caller(0)


def requester_access(db: Session, requester: Caller | None, project_id: int) -> FieldAccess:
    """What the export's requester may read in the project, now (at build time): governance's
    one rule (:func:`seqcore.security.fieldaccess.readable_fields`). An export whose requester's
    account is gone holds the open (``LEVEL_1``) fields only."""
    if requester is not None:
        return readable_fields(db, requester, project_id)
    hidden = db.scalars(select(MetadataField.name).where(
        MetadataField.project_id == project_id, MetadataField.restriction > OPEN))
    return FieldAccess(OPEN, frozenset(hidden), GONE)


def export_metadata_rows(db: Session, requester: Caller | None, project: Project,
                         sample_ids: Sequence[int], columns: Sequence[str] | None
                         ) -> tuple[list[str], Iterator[list[str]]]:
    """The line list of ``sample_ids`` (in that order) for ``requester``: its header and
    its rows, read ``BATCH`` samples at a time.

    ``columns`` are the metadata fields asked for (a template's, in order); ``None`` means
    every field the samples have. Either way only the fields the requester may read
    (:func:`requester_access`) are columns: a restricted field is left out, header and
    values. This is the one place an export reads sample metadata.
    """
    access = requester_access(db, requester, project.id)
    if columns is None:
        names: set[str] = set()
        for start in range(0, len(sample_ids), BATCH):
            names.update(db.scalars(select(MetadataEntry.field).distinct().where(
                MetadataEntry.sample_id.in_(sample_ids[start:start + BATCH]),
                access.entries())))
        columns = sorted(names, key=lambda name: (name.casefold(), name))
    fields = access.visible(columns)

    def rows() -> Iterator[list[str]]:
        for start in range(0, len(sample_ids), BATCH):
            batch = list(sample_ids[start:start + BATCH])
            samples = {row.id: row for row in db.execute(
                select(Sample.id, Sample.puid, Sample.name).where(Sample.id.in_(batch)))}
            values: dict[int, dict[str, str]] = {sample_id: {} for sample_id in batch}
            if fields:
                for sample_id, field, value in db.execute(
                        select(MetadataEntry.sample_id, MetadataEntry.field,
                               MetadataEntry.value).where(
                            MetadataEntry.sample_id.in_(batch),
                            MetadataEntry.field.in_(fields), access.entries())):
                    values[sample_id][field] = value
            for sample_id in batch:
                sample = samples.get(sample_id)
                if sample is None:  # deleted since the export was asked for
                    continue
                yield [sample.puid, sample.name, project.puid,
                       *(values[sample_id].get(field, "") for field in fields)]

    return [*LINELIST_COLUMNS, *fields], rows()


def write_export_linelist(out: IO[bytes], header: Sequence[str],
                          rows: Iterable[Sequence[str]]) -> None:
    """The line list as CSV, written by :func:`seqcore.samples.linelist.write_rows` (RFC 4180,
    ``\\r\\n`` line ends, UTF-8). A bundle goes to partners who open it in a spreadsheet;
    that writer neutralises a value one would run as a formula, as in every line list."""
    write_rows(_with_header(header, rows), "csv", out)


def _with_header(header: Sequence[str], rows: Iterable[Sequence[str]]
                 ) -> Iterator[list[str]]:
    yield list(header)
    for row in rows:
        yield list(row)


# -- the stored files ---------------------------------------------------------------------


@dataclass(frozen=True)
class StoredEntry:
    """A stored file to put in the bundle at ``path``."""

    path: str
    storage_path: str
    size: int


def _sample_dirs(db: Session, sample_ids: Sequence[int]) -> dict[int, str]:
    rows = db.execute(select(Sample.id, Sample.puid, Sample.name).where(
        Sample.id.in_(sample_ids)))
    return {row.id: f"samples/{row.puid}_{safe_segment(row.name)}" for row in rows}


def sample_entries(db: Session, registry: Any, sample_ids: Sequence[int],
                   kinds: Sequence[str]) -> Iterator[StoredEntry]:
    """The stored files of the samples' selected kinds: each processed sequencing object's
    files (in their order), then the plugin tables' files, ``BATCH`` samples at a time."""
    tables = file_tables(registry)
    object_kinds = [kind for kind in kinds if kind not in tables]
    for start in range(0, len(sample_ids), BATCH):
        batch = list(sample_ids[start:start + BATCH])
        dirs = _sample_dirs(db, batch)
        found: dict[int, list[StoredEntry]] = {sample_id: [] for sample_id in batch}
        if object_kinds:
            rows = db.execute(
                select(SequencingObject.sample_id, SequencingObject.kind, SequencingObject.id,
                       SequenceFile.file_name, SequenceFile.path, SequenceFile.size)
                .join(SequencingObjectFile, SequencingObjectFile.object_id == SequencingObject.id)
                .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
                .where(SequencingObject.sample_id.in_(batch),
                       SequencingObject.kind.in_(object_kinds),
                       SequencingObject.processing_state == ProcessingState.FINISHED.value)
                .order_by(SequencingObject.id, SequencingObjectFile.position))
            for row in rows:
                if row.sample_id in dirs:
                    found[row.sample_id].append(StoredEntry(
                        f"{dirs[row.sample_id]}/{row.kind}/{row.id}/"
                        f"{safe_segment(row.file_name, 200)}", row.path, row.size))
        for kind in kinds:
            if kind not in tables:
                continue
            table, sample_columns, file_columns = tables[kind]
            key = next(iter(table.primary_key.columns))
            for sample_column in sample_columns:
                for file_column in file_columns:
                    rows = db.execute(
                        select(sample_column.label("sample_id"), key.label("row_id"),
                               SequenceFile.file_name, SequenceFile.path, SequenceFile.size)
                        .select_from(table)
                        .join(SequenceFile, SequenceFile.id == file_column)
                        .where(sample_column.in_(batch)).order_by(key))
                    for row in rows:
                        if row.sample_id in dirs:
                            found[row.sample_id].append(StoredEntry(
                                f"{dirs[row.sample_id]}/{safe_segment(kind)}/{row.row_id}/"
                                f"{safe_segment(row.file_name, 200)}", row.path, row.size))
        for sample_id in batch:
            yield from found[sample_id]


def analysis_entries(db: Session, analysis_ids: Sequence[int], keys: Sequence[str] | None
                     ) -> Iterator[StoredEntry]:
    """The outputs of the analyses (only the keys named, when ``keys`` is given)."""
    for analysis_id in analysis_ids:
        submission = db.get(AnalysisSubmission, analysis_id)
        if submission is None:  # deleted since
            continue
        base = f"analyses/{submission.id}_{safe_segment(submission.name)}"
        query = (select(AnalysisOutput.key, SequenceFile.file_name, SequenceFile.path,
                        SequenceFile.size)
                 .join(SequenceFile, SequenceFile.id == AnalysisOutput.file_id)
                 .where(AnalysisOutput.submission_id == analysis_id)
                 .order_by(AnalysisOutput.key, AnalysisOutput.id))
        if keys is not None:
            query = query.where(AnalysisOutput.key.in_(list(keys)))
        for row in db.execute(query):
            yield StoredEntry(f"{base}/{safe_segment(row.key)}/"
                              f"{safe_segment(row.file_name, 200)}", row.path, row.size)


def missing(storage: Any, entries: Iterable[StoredEntry]) -> list[str]:
    """The bundle paths whose stored bytes are gone."""
    return [entry.path for entry in entries if storage.size(entry.storage_path) is None]
