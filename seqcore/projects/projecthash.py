"""A project's hash: one integer that changes whenever the project, its samples, their
metadata or their files change, and stays the same otherwise, so that a client mirroring the
project (IRIDA's synchronisation) can skip it when nothing changed.

It is computed from what is stored, not kept as a counter: every write path (REST, GraphQL,
the worker, a plugin's own endpoints) is covered without any of them remembering to bump
something, reading never changes it, and it is the same in every process and after a restart.
It costs a few queries whatever the project's size (one per part below), streamed and hashed
row by row, so memory stays flat.

What goes in, each part in id order:

- the project's own fields (a renamed project must be fetched again, as in IRIDA, whose hash
  starts with the project);
- each sample's fields, including its modification time;
- each sample's metadata entries (field, value, type);
- each sequencing object's id and kind, and each of its files (name, stored path, size,
  checksum, revision): a worker decompressing a file into a new revision changes the hash;
- every row a plugin (or the core: GraphQL's attachments) attaches to a sample (any
  registered table with a foreign key to ``sample.id``, such as assemblies), with the stored
  files its foreign keys name.

What stays out: processing state, leases and QC results (the worker's bookkeeping, not the
data), analyses run on the files, memberships, and other projects sharing the same samples.

The value is a signed 32-bit integer because IRIDA's clients read ``projectHash`` into a Java
``Integer``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, cast

import pluggy
from sqlalchemy import ColumnElement, Table, select
from sqlalchemy.orm import Session

from seqcore.db import AnySelect
from seqcore.framework.contributions import declarations
from seqcore.models.ncbi import NcbiSubmissionSample
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile

# The project's fields that are its content (not its place, path or timestamps).
PROJECT_FIELDS = ("name", "description", "remote_url", "organism", "genome_size",
                  "minimum_coverage", "maximum_coverage", "sync_frequency")

SAMPLE_COLUMNS = (Sample.id, Sample.name, Sample.description, Sample.organism, Sample.isolate,
                  Sample.strain, Sample.collected_by, Sample.collection_date,
                  Sample.geographic_location_name, Sample.isolation_source, Sample.latitude,
                  Sample.longitude, Sample.created, Sample.modified)

# What says a stored file changed: a new revision, path or size, or other bytes.
FILE_STATE = ("id", "file_name", "path", "size", "upload_sha256", "revision")

# Tables the core hashes itself (the membership selects the samples; the others are parts),
# and the core's tables that name samples without being their content: an NCBI submission's
# record of a sample (its accessions reach the hash through the metadata they are written to).
_CORE_TABLES = frozenset({ProjectSample.__table__, MetadataEntry.__table__,
                          SequencingObject.__table__, NcbiSubmissionSample.__table__})

_BATCH = 2000


ATTACHMENTS = "seqcore.project_hash_attachments"


def sample_attachments(models: Iterable[type]) -> tuple[Table, ...]:
    """The tables among ``models`` that attach rows to samples (a foreign key to
    ``sample.id``) beyond the core's own, by name: what plugins keep per sample."""
    # Declarative classes annotate __table__ as a FromClause; these are mapped to tables.
    sample_table = cast(Table, Sample.__table__)
    found: dict[str, Table] = {}
    for model in models:
        table = getattr(model, "__table__", None)
        if not isinstance(table, Table) or table in _CORE_TABLES:
            continue
        if any(fk.references(sample_table) for fk in table.foreign_keys):
            found[table.name] = table
    return tuple(found[name] for name in sorted(found))


def installed_attachments(pm: pluggy.PluginManager) -> tuple[Table, ...]:
    """:func:`sample_attachments` of every model the application's plugins register."""
    return sample_attachments(model for _, model in declarations(pm, "register_models"))


def hashed_attachments(registry: Any) -> tuple[Table, ...]:
    """The plugin tables the application's hashes include, found once at start-up
    (:func:`includeme`): the models cannot change while it runs."""
    return cast("tuple[Table, ...]", registry[ATTACHMENTS])


def includeme(config: Any) -> None:
    config.registry[ATTACHMENTS] = installed_attachments(config.registry.pm)


def project_hash(db: Session, project: Project, attachments: Sequence[Table] = ()) -> int:
    """The hash of ``project`` (see the module's docstring); ``attachments`` are the plugin
    tables to include (:func:`hashed_attachments`)."""
    db.flush()  # the queries below read through the connection: pending changes first
    digest = hashlib.sha256()
    _feed(digest, "project", [[getattr(project, name) for name in PROJECT_FIELDS]])
    for part, query in _parts(project.id, attachments):
        rows = db.connection().execute(query.execution_options(yield_per=_BATCH))
        _feed(digest, part, rows)
    return int.from_bytes(digest.digest()[:4], "big", signed=True)


def _in_project(project_id: int, sample_id: Any) -> Any:
    """The condition that ``sample_id`` names a sample of the project."""
    return sample_id.in_(select(ProjectSample.sample_id)
                         .where(ProjectSample.project_id == project_id)
                         .scalar_subquery())


def _parts(project_id: int, attachments: Sequence[Table]) -> Iterable[tuple[str, AnySelect]]:
    yield "samples", (select(*SAMPLE_COLUMNS)
                      .where(_in_project(project_id, Sample.id))
                      .order_by(Sample.id))
    yield "metadata", (select(MetadataEntry.sample_id, MetadataEntry.field,
                              MetadataEntry.value, MetadataEntry.type)
                       .where(_in_project(project_id, MetadataEntry.sample_id))
                       .order_by(MetadataEntry.sample_id, MetadataEntry.field))
    yield "sequencing", (select(SequencingObject.id, SequencingObject.sample_id,
                                SequencingObject.kind, SequencingObjectFile.position,
                                *(getattr(SequenceFile, name) for name in FILE_STATE))
                         .outerjoin(SequencingObjectFile,
                                    SequencingObjectFile.object_id == SequencingObject.id)
                         .outerjoin(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
                         .where(_in_project(project_id, SequencingObject.sample_id))
                         .order_by(SequencingObject.id, SequencingObjectFile.position))
    for table in attachments:
        yield f"table {table.name}", _attachment_query(project_id, table)


def _attachment_query(project_id: int, table: Table) -> AnySelect:
    """Every column of ``table``'s rows on the project's samples, followed by the state of
    each stored file a foreign key of the row names."""
    sample_table = cast(Table, Sample.__table__)
    file_table = cast(Table, SequenceFile.__table__)
    columns: list[Any] = list(table.columns)
    query_joins = []
    for n, fk in enumerate(sorted(table.foreign_keys, key=lambda fk: fk.parent.name)):
        if fk.references(file_table):
            stored = file_table.alias(f"stored_{n}")
            columns.extend(stored.c[name] for name in FILE_STATE)
            query_joins.append((stored, stored.c.id == fk.parent))
    query = select(*columns).select_from(table)
    for stored, joined_on in query_joins:
        query = query.outerjoin(stored, joined_on)
    condition: ColumnElement[bool] | None = None
    for fk in table.foreign_keys:
        if fk.references(sample_table):
            in_project = _in_project(project_id, fk.parent)
            condition = in_project if condition is None else condition | in_project
    if condition is None:  # sample_attachments chose tables with a key to sample.id
        raise ValueError(f"{table.name} has no foreign key to sample.id")
    order = list(table.primary_key.columns) or list(table.columns)
    return query.where(condition).order_by(*order)


def _feed(digest: Any, part: str, rows: Iterable[Sequence[Any]]) -> None:
    """Add a named part: its name, then each row's ``repr`` (the same for the same values in
    every process: strings, numbers, dates and ``None`` all have one), about three times
    faster than a JSON encoding of it."""
    digest.update(f"\x00{part}\n".encode())
    for row in rows:
        digest.update(repr(tuple(row)).encode())
