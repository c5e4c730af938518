"""Retention: deleted samples and sequencing objects go to a trash for
``seqcore.retention.days`` (0: purged at once, as before retention existed).

While a deletion runs inside :func:`trashing`, :func:`seqcore.governance.purge.purge_files` keeps
the stored bytes instead of removing them after commit, and each deleted sample or object leaves a
:class:`~seqcore.models.trash.TrashEntry`: a snapshot of its rows (the sample, its project
memberships, metadata, sequencing objects and their files) and the paths of its bytes. An
owner of the project restores it (:func:`restore_entry`) until it expires; then the worker
purges the bytes (:func:`purge_expired`). Both are write operations, so the trail records
them. Rows that plugins keep about a sequencing object (QC reports, a kind's own tables) are
not in the snapshot: a restored object has its files and metadata back, not its QC report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Conflict, NotFound
from seqcore.governance.activity import note, operation
from seqcore.governance.trashpaths import held_in_trash
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import (
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
    SequencingRun,
)
from seqcore.models.trash import TrashEntry

KEEP_BYTES = "seqcore.trash.keep_bytes"
SETTING = "seqcore.retention.days"


def retention_days(db: Session) -> int:
    """The setting, read through the request that owns the session (0 outside one)."""
    request = db.info.get("seqcore.request")
    if request is None:
        return 0
    return int(request.registry.settings.get(SETTING, 0) or 0)


def keeping_bytes(db: Session) -> bool:
    """Whether a deletion running now goes to the trash (its bytes must stay)."""
    return bool(db.info.get(KEEP_BYTES))


@contextmanager
def trashing(db: Session) -> Iterator[bool]:
    """Run a deletion keeping its stored bytes when retention is on; yields whether it is."""
    days = retention_days(db)
    if days <= 0 or db.info.get(KEEP_BYTES):
        yield bool(db.info.get(KEEP_BYTES))
        return
    db.info[KEEP_BYTES] = days
    try:
        yield True
    finally:
        db.info.pop(KEEP_BYTES, None)


# -- snapshots -------------------------------------------------------------------------------


def _row(obj: Any, skip: Iterable[str] = ()) -> dict[str, Any]:
    values = {}
    for column in obj.__table__.columns:
        if column.key in skip:
            continue
        value = getattr(obj, column.key)
        values[column.key] = value.isoformat() if isinstance(value, datetime | date) else value
    return values


def _revive(model: type, values: dict[str, Any]) -> Any:
    columns = model.__table__.columns  # type: ignore[attr-defined]
    kwargs = {}
    for key, value in values.items():
        if key not in columns:
            continue
        column_type = columns[key].type
        column_type = getattr(column_type, "impl_instance", column_type)  # UTCDateTime
        try:
            kind = column_type.python_type
        except NotImplementedError:
            kind = object
        if isinstance(value, str) and kind is datetime:
            value = datetime.fromisoformat(value)
        elif isinstance(value, str) and kind is date:
            value = date.fromisoformat(value)
        kwargs[key] = value
    return model(**kwargs)


def _objects(db: Session, condition: Any) -> tuple[list[dict[str, Any]], list[str]]:
    objects: list[dict[str, Any]] = []
    paths: list[str] = []
    for obj in db.scalars(select(SequencingObject).where(condition)
                          .order_by(SequencingObject.id)):
        files = []
        for link in obj.links:
            files.append({"position": link.position, "file": _row(link.file)})
            paths.extend(p for p in (link.file.path, link.file.original_path) if p)
        objects.append({"object": _row(obj), "files": files})
    return objects, paths


def _entry(db: Session, kind: str, project_id: int | None, label: str, snapshot: Any,
           paths: list[str], sample_id: int | None = None, object_id: int | None = None
           ) -> None:
    from seqcore.governance.activity import current_actor

    days = int(db.info[KEEP_BYTES])
    now = utcnow()
    db.add(TrashEntry(kind=kind, project_id=project_id, sample_id=sample_id,
                      object_id=object_id, label=label[:255], snapshot=snapshot,
                      paths=sorted(set(paths)), deleted_by=current_actor(db).user_id,
                      deleted=now, expires=now + timedelta(days=days)))


def trash_samples(db: Session, sample_ids: Iterable[int]) -> None:
    """Snapshot samples about to be deleted (inside :func:`trashing`)."""
    for sample in db.scalars(select(Sample).where(Sample.id.in_(list(sample_ids)))):
        joins = list(db.scalars(select(ProjectSample).where(
            ProjectSample.sample_id == sample.id).order_by(ProjectSample.owner.desc(),
                                                           ProjectSample.id)))
        entries = db.scalars(select(MetadataEntry).where(MetadataEntry.sample_id == sample.id))
        objects, paths = _objects(db, SequencingObject.sample_id == sample.id)
        snapshot = {"sample": _row(sample),
                    "projects": [_row(j, skip=("id",)) for j in joins],
                    "metadata": [_row(e, skip=("id",)) for e in entries],
                    "objects": objects}
        _entry(db, "sample", joins[0].project_id if joins else None, sample.name, snapshot,
               paths, sample_id=sample.id)


def trash_object(db: Session, obj: SequencingObject) -> None:
    """Snapshot one sequencing object about to be deleted (inside :func:`trashing`)."""
    objects, paths = _objects(db, SequencingObject.id == obj.id)
    project_id = db.scalar(select(ProjectSample.project_id).where(
        ProjectSample.sample_id == obj.sample_id).order_by(ProjectSample.owner.desc(),
                                                           ProjectSample.id))
    names = ", ".join(f["file"]["file_name"] for f in objects[0]["files"]) if objects else ""
    _entry(db, "sequencingObject", project_id, names or f"object {obj.id}",
           {"objects": objects, "sample_id": obj.sample_id}, paths,
           sample_id=obj.sample_id, object_id=obj.id)


# -- restoring and purging --------------------------------------------------------------------


def project_trash(db: Session, project_id: int) -> list[TrashEntry]:
    """What the project's trash holds now (neither restored nor purged), newest first."""
    return list(db.scalars(select(TrashEntry).where(
        TrashEntry.project_id == project_id, TrashEntry.restored.is_(None),
        TrashEntry.purged.is_(None)).order_by(TrashEntry.id.desc())))


def get_entry(db: Session, project_id: int, entry_id: int) -> TrashEntry:
    entry = db.get(TrashEntry, entry_id)
    if (entry is None or entry.project_id != project_id or entry.restored is not None
            or entry.purged is not None):
        raise NotFound("No such entry in this project's trash.")
    return entry


def _free_id(db: Session, model: type, wanted: int | None) -> dict[str, int]:
    """Keep the old id when no row took it meanwhile."""
    return {"id": wanted} if wanted is not None and db.get(model, wanted) is None else {}


def _restore_objects(db: Session, objects: list[dict[str, Any]], sample_id: int) -> None:
    for item in objects:
        values = {**item["object"], "sample_id": sample_id}
        if values.get("run_id") is not None and db.get(SequencingRun, values["run_id"]) is None:
            values["run_id"] = None
        old = values.pop("id", None)
        obj = _revive(SequencingObject, values)
        for key, value in _free_id(db, SequencingObject, old).items():
            setattr(obj, key, value)
        for link in item["files"]:
            file_values = dict(link["file"])
            old_file = file_values.pop("id", None)
            record = _revive(SequenceFile, file_values)
            for key, value in _free_id(db, SequenceFile, old_file).items():
                setattr(record, key, value)
            obj.links.append(SequencingObjectFile(position=link["position"], file=record))
        db.add(obj)


@operation("trash.restore")
def restore_entry(db: Session, entry: TrashEntry) -> Any:
    """Put a trashed sample (into the projects that still exist) or sequencing object (into
    its sample, if that still exists) back; :class:`Conflict` when a project has a sample of
    that name now, or the sample is gone."""
    snapshot = entry.snapshot
    if entry.kind == "sample":
        values = dict(snapshot["sample"])
        old = values.pop("id", None)
        projects = [j for j in snapshot["projects"]
                    if db.get(Project, j["project_id"]) is not None]
        for join in projects:
            if db.scalar(select(ProjectSample.id).where(
                    ProjectSample.project_id == join["project_id"],
                    ProjectSample.sample_name == join["sample_name"])):
                raise Conflict(f"Project {join['project_id']} has a sample named "
                               f"{join['sample_name']!r} now; rename it first.")
        if not projects:
            raise Conflict("None of the sample's projects exists any more.")
        if values.get("puid") and db.scalar(select(Sample.id).where(
                Sample.puid == values["puid"])):
            values.pop("puid")
        sample = _revive(Sample, values)
        for key, value in _free_id(db, Sample, old).items():
            setattr(sample, key, value)
        for join in projects:
            sample.projects.append(_revive(ProjectSample, {**join, "sample_id": None}))
        for item in snapshot["metadata"]:
            sample.metadata_entries.append(_revive(MetadataEntry, {**item, "sample_id": None}))
        db.add(sample)
        db.flush()
        _restore_objects(db, snapshot["objects"], sample.id)
        restored: Any = sample
    else:
        sample = db.get(Sample, snapshot["sample_id"])
        if sample is None:
            raise Conflict("The sample of these files is gone; restore the sample first.")
        _restore_objects(db, snapshot["objects"], sample.id)
        restored = sample
    entry.restored = utcnow()
    db.flush()
    return restored


@operation("trash.purge")
def purge_entry(db: Session, storage: Any, manager: Any, entry: TrashEntry) -> None:
    """Remove an expired entry's stored bytes (after commit), unless a row uses a path again
    (a restored copy, a clone's file) or another entry still in the trash keeps it (a clone
    deleted after its original, which may yet be restored), and mark it purged."""
    paths = list(entry.paths or [])
    used = set()
    if paths:
        used = {p for row in db.execute(select(SequenceFile.path, SequenceFile.original_path)
                                        .where(or_(SequenceFile.path.in_(paths),
                                                   SequenceFile.original_path.in_(paths))))
                for p in row if p}
        used |= held_in_trash(db, set(paths) - used, but=entry.id)
    storage.remove_after_commit(sorted(set(paths) - used), manager)
    entry.purged = utcnow()
    note(db, projects=[entry.project_id] if entry.project_id else [],
         samples=[entry.sample_id] if entry.sample_id else [],
         on="trash", id=entry.id, action="purged", kind=entry.kind, label=entry.label)
    db.flush()


def expired(db: Session, now: datetime | None = None, limit: int = 100) -> list[TrashEntry]:
    return list(db.scalars(select(TrashEntry).where(
        TrashEntry.expires <= (now or utcnow()), TrashEntry.restored.is_(None),
        TrashEntry.purged.is_(None)).order_by(TrashEntry.expires).limit(limit)))


class TrashWorker:
    """The worker's round for the trash: purge what expired, one transaction per entry."""

    def __init__(self, registry: Any) -> None:
        from seqcore.services import ISessionFactory, IStorage, registry_service

        self.session_factory = registry_service(registry, ISessionFactory)
        self.storage = registry_service(registry, IStorage)

    def run_once(self, now: datetime | None = None) -> int:
        import transaction

        from seqcore.db import session_for
        from seqcore.governance.activity import SERVICE, acting

        purged = 0
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            ids = [entry.id for entry in expired(session_for(self.session_factory, manager),
                                                 now)]
        for entry_id in ids:
            manager = transaction.TransactionManager(explicit=True)
            with manager:
                db = session_for(self.session_factory, manager)
                entry = db.get(TrashEntry, entry_id, with_for_update=True)
                if entry is None or entry.purged is not None or entry.restored is not None:
                    continue
                with acting(db, SERVICE):
                    purge_entry(db, self.storage, manager, entry)
                purged += 1
        return purged
