"""The map from a remote install's objects to the local rows they became
(:class:`~seqcore.models.imports.ImportedObject`)."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.models.imports import ImportedObject


class IdMap:
    """The entries of one remote install, read once per object type and kept current as
    objects are recorded."""

    def __init__(self, remote: str, remote_kind: str) -> None:
        self.remote = remote
        self.remote_kind = remote_kind
        self._known: dict[str, dict[str, int]] = {}

    def known(self, db: Session, object_type: str) -> dict[str, int]:
        if object_type not in self._known:
            rows = db.execute(select(ImportedObject.remote_id, ImportedObject.local_id).where(
                ImportedObject.remote == self.remote,
                ImportedObject.remote_kind == self.remote_kind,
                ImportedObject.object_type == object_type))
            self._known[object_type] = {remote_id: local_id for remote_id, local_id in rows}
        return self._known[object_type]

    def local(self, db: Session, object_type: str, remote_id: str) -> int | None:
        return self.known(db, object_type).get(str(remote_id))

    def record(self, db: Session, object_type: str, remote_id: str, local_id: int,
               import_id: int | None) -> None:
        """Enter an object in the map, in the caller's transaction (forgetting an entry
        whose local row went, so the object is copied again). Not flushed here: it goes with
        the next statement of the transaction, at the latest with its commit."""
        if str(remote_id) in self.known(db, object_type):
            db.execute(delete(ImportedObject).where(
                ImportedObject.remote == self.remote,
                ImportedObject.remote_kind == self.remote_kind,
                ImportedObject.object_type == object_type,
                ImportedObject.remote_id == str(remote_id)))
        db.add(ImportedObject(remote=self.remote, remote_kind=self.remote_kind,
                              object_type=object_type, remote_id=str(remote_id),
                              local_id=local_id, import_id=import_id))
        self.known(db, object_type)[str(remote_id)] = local_id

    def forget_cache(self) -> None:
        """Read the map again (after a transaction aborted, its entries are gone)."""
        self._known.clear()
