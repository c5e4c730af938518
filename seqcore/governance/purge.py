"""Purging stored files once what held them is deleted: the rows in the deleting transaction,
the bytes only after it commits, and never a file something else still refers to.

A stored file is a ``sequence_file`` row and the bytes at its ``path`` (and, once the worker
has decompressed an upload, at its ``original_path``). Many tables point at stored files:
a sequencing object's files, an analysis output, an assembly, a plugin's reference genome.
An operation that deletes one of those rows hands the file ids to :func:`purge_files`, which
asks every foreign key to ``sequence_file`` (the core's and the plugins' alike, read from the
mapped tables) whether another row still refers to a file, and keeps those that are; rows
that only describe a file (its QC report) go with it. A storage path two rows share is kept
while one of them stays.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, inspect, or_, select
from sqlalchemy.orm import Session

from seqcore.db import Base
from seqcore.db.locks import lock_row
from seqcore.errors.domain import NotFound
from seqcore.governance.activity import note, operation
from seqcore.governance.trashpaths import held_in_trash
from seqcore.models.sample import Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile

# Tables whose rows describe a stored file rather than hold it (a file's QC report): they go
# with the file (``ON DELETE CASCADE``) and never keep it. A plugin marks such a table with
# ``__table_args__ = {"info": {DESCRIBES_STORED_FILE: True}}``.
DESCRIBES_STORED_FILE = "seqcore.describes_stored_file"
_DESCRIBING = ("qc_record",)


def _referrers(db: Session) -> list[tuple[Any, Any]]:
    """(table, column) of every foreign key that holds a ``sequence_file`` row, among the
    tables this database has (a plugin imported but not installed has none)."""
    target = SequenceFile.__table__
    present = set(inspect(db.connection()).get_table_names())
    return [(table, element.parent)
            for table in Base.metadata.sorted_tables
            if table.name in present and table.name not in _DESCRIBING
            and not table.info.get(DESCRIBES_STORED_FILE)
            for fk in table.foreign_key_constraints if fk.referred_table is target
            for element in fk.elements]


def still_referenced(db: Session, file_ids: Iterable[int]) -> set[int]:
    """The files among ``file_ids`` that some row (of any table) still refers to."""
    ids = list(file_ids)
    found: set[int] = set()
    if not ids:
        return found
    for table, column in _referrers(db):
        found.update(db.execute(select(column).select_from(table)
                                .where(column.in_(ids))).scalars())
    return found


def purge_files(db: Session, storage: Any, manager: Any, file_ids: Iterable[int]) -> list[int]:
    """Delete the ``sequence_file`` rows of ``file_ids`` that nothing refers to any more, and
    have their bytes removed once ``manager``'s transaction commits; returns the ids deleted.

    Call it after deleting (and flushing) the rows that held the files: the files those rows
    shared with rows that stay are kept, as are paths another stored file still uses or an
    entry in the trash keeps (:func:`held_in_trash`). Nothing is removed from storage if the
    transaction aborts.
    """
    db.flush()
    candidates = set(file_ids)
    gone = sorted(candidates - still_referenced(db, candidates))
    if not gone:
        return []
    rows = db.execute(select(SequenceFile.id, SequenceFile.path, SequenceFile.original_path)
                      .where(SequenceFile.id.in_(gone))).all()
    paths = {p for row in rows for p in (row.path, row.original_path) if p}
    kept = set()
    if paths:
        others = db.execute(select(SequenceFile.path, SequenceFile.original_path).where(
            SequenceFile.id.not_in(gone),
            or_(SequenceFile.path.in_(paths), SequenceFile.original_path.in_(paths)))).all()
        kept = {p for row in others for p in row if p}
    db.execute(delete(SequenceFile).where(SequenceFile.id.in_(gone))
               .execution_options(synchronize_session=False))
    # The trash keeps them (seqcore.governance.trash); only bytes about to be removed are
    # looked up among the entries still in the trash.
    if paths - kept and not db.info.get("seqcore.trash.keep_bytes"):
        storage.remove_after_commit(sorted(paths - kept - held_in_trash(db, paths - kept)),
                                    manager)
    return gone


def delete_objects(db: Session, storage: Any, manager: Any, condition: Any) -> None:
    """Delete the sequencing objects matching ``condition`` (a condition on
    ``SequencingObject``), then their files through :func:`purge_files`: what a deleted
    object, run or sample takes along."""
    file_ids = list(db.scalars(
        select(SequencingObjectFile.file_id)
        .join(SequencingObject, SequencingObject.id == SequencingObjectFile.object_id)
        .where(condition)))
    gone = db.execute(select(SequencingObject.id, SequencingObject.sample_id)
                      .where(condition)).all()
    if gone:
        note(db, samples={row.sample_id for row in gone}, on="sequencingObject",
             action="deleted", ids=sorted(row.id for row in gone))
    db.execute(delete(SequencingObject).where(condition))
    purge_files(db, storage, manager, file_ids)


@operation("file.delete")
def delete_sequencing_object(db: Session, storage: Any, manager: Any, obj: SequencingObject
                             ) -> None:
    """Delete one sequencing object with its files (409, nothing deleted, while an analysis
    used it).

    Its sample is held (as uploads and run deletes hold it) and the object read again
    first: of concurrent deletes of one object, the first deletes it and leaves the one
    activity record; the others wait, then find it gone (:class:`~seqcore.errors.NotFound`,
    nothing written)."""
    from seqcore.analysis.dependents import refuse_if_used
    from seqcore.governance.trash import trash_object, trashing

    lock_row(db, Sample, obj.sample_id)
    if db.scalar(select(SequencingObject.id).where(SequencingObject.id == obj.id)) is None:
        raise NotFound(f"The sequencing object {obj.id} was not found.")

    refuse_if_used(db, f"The sequencing object {obj.id}", object_ids=[obj.id])
    with trashing(db) as kept:
        if kept:
            trash_object(db, obj)
        delete_objects(db, storage, manager, SequencingObject.id == obj.id)
