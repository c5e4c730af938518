"""The core's own declarations, made through the same hooks a plugin uses."""

from __future__ import annotations

from seqcore import hookimpl
from seqcore.contrib import Setting


@hookimpl
def register_models() -> list[type]:
    from seqcore import models

    classes = (getattr(models, name) for name in models.__all__)
    return [cls for cls in classes if isinstance(cls, type) and hasattr(cls, "__tablename__")]


@hookimpl
def register_settings() -> list[Setting]:
    from seqcore.settings import core_declarations

    return [declared.setting for declared in core_declarations()]


@hookimpl
def register_links() -> list:
    from seqcore.core_links import core_links

    return core_links()


@hookimpl
def register_metadata_types() -> list:
    from seqcore.metadata import TEXT

    return [TEXT]


@hookimpl
def samples_deleting(sample_ids: list[int], request: object) -> None:
    """Sequence files go with their samples: rows now, stored files once committed."""
    from sqlalchemy import delete, select

    from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile

    db = request.db
    rows = db.execute(
        select(SequenceFile.id, SequenceFile.path, SequenceFile.original_path)
        .join(SequencingObjectFile, SequencingObjectFile.file_id == SequenceFile.id)
        .join(SequencingObject, SequencingObject.id == SequencingObjectFile.object_id)
        .where(SequencingObject.sample_id.in_(sample_ids))).all()
    if not rows:
        return
    db.execute(delete(SequencingObject).where(SequencingObject.sample_id.in_(sample_ids)))
    db.execute(delete(SequenceFile).where(SequenceFile.id.in_([r.id for r in rows])))
    paths = [p for r in rows for p in (r.path, r.original_path) if p]
    request.storage.remove_after_commit(paths, request.tm)
