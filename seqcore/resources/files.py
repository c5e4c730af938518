"""Sequencing objects and their files under a sample (``/api/samples/{sid}/<kind>/...``).

Every context here hangs below the sample and inherits its ACL: whoever may read the sample
may read its files; whoever may change it may upload and delete.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar, cast

from sqlalchemy import select

from seqcore.framework.contrib import FileKind
from seqcore.models.sequencing import (
    QCRecord,
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
)
from seqcore.resources.base import Context, SampleNode, int_key

V = TypeVar("V")


class ObjectBatch:
    """Objects answered together (a page of a kind's listing, a submission's inputs of one
    kind) and what was looked up once for all of them (:meth:`SequencingObjectResource.batched`)."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids
        self.found: dict[Hashable, Mapping[int, Any]] = {}


def registered_kinds(registry: Any) -> dict[str, FileKind]:
    """Registered kinds by path segment."""
    return cast("dict[str, FileKind]", registry.get("seqcore.file_kinds", {}))


def file_kinds(request: Any) -> dict[str, FileKind]:
    """Registered kinds by path segment, of the request's application."""
    return registered_kinds(request.registry)


class SampleSequenceFiles(Context):
    """``/api/samples/{sid}/sequenceFiles``: every file of the sample, and aliases of the
    kinds' collections (``sequenceFiles/pairs``) and of files by id (``sequenceFiles/{fid}``)."""

    @property
    def sample(self) -> Any:
        return cast(SampleNode, self.__parent__).sample

    @property
    def sample_ctx(self) -> Context:
        """The sample's context, which this collection hangs below."""
        return cast(Context, self.__parent__)

    def child(self, key: str) -> Any:
        kinds = file_kinds(self.request)
        if key in kinds:
            # An alias: the context lives at its canonical place under the sample.
            return cast(SampleNode, self.__parent__)[key]
        file_id = int_key(key)
        row = self.db.execute(
            select(SequencingObject, SequenceFile)
            .join(SequencingObjectFile, SequencingObjectFile.object_id == SequencingObject.id)
            .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
            .where(SequencingObject.sample_id == self.sample.id, SequenceFile.id == file_id)
        ).first()
        if row is None or row.SequencingObject.kind not in {k.name for k in kinds.values()}:
            raise KeyError(key)
        kind = next(k for k in kinds.values() if k.name == row.SequencingObject.kind)
        objects = SequencingObjects(self.request, kind.path_segment, self.sample_ctx, kind)
        return objects.resource_for(row.SequencingObject)["files"][str(file_id)]


class SequencingObjects(Context):
    """``/api/samples/{sid}/<segment>``: the sample's objects of one kind."""

    def __init__(self, request: Any, name: str, parent: Context, kind: FileKind) -> None:
        super().__init__(request, name, parent)
        self.kind = kind

    @property
    def sample(self) -> Any:
        return cast(SampleNode, self.__parent__).sample

    def child(self, key: str) -> Any:
        obj = self.db.get(SequencingObject, int_key(key))
        if obj is None or obj.sample_id != self.sample.id or obj.kind != self.kind.name:
            raise KeyError(key)
        return self.resource_for(obj)

    def resource_for(self, obj: SequencingObject) -> SequencingObjectResource:
        factory = self.kind.object_context or SequencingObjectResource
        return cast("SequencingObjectResource", factory(self.request, str(obj.id), self, obj))


class SequencingObjectResource(Context):
    __parent__: SequencingObjects

    def __init__(self, request: Any, name: str, parent: SequencingObjects,
                 obj: SequencingObject) -> None:
        super().__init__(request, name, parent)
        self.obj = obj
        #: The objects answered with this one (set by the REST answers of several objects).
        self.batch: ObjectBatch | None = None

    def batched(self, key: Hashable, load: Callable[[list[int]], Mapping[int, V]]
                ) -> Mapping[int, V]:
        """What ``load(ids)`` answers (a mapping by object id) for the objects answered
        together with this one, asked once for all of them under ``key`` and kept: a
        per-object lookup of a kind's ``describe`` or of a link's href (a pair's
        orientation, its latest analysis) then costs one statement per page of a listing
        instead of one per object. Alone, the object is a batch of one."""
        batch = self.batch
        if batch is None:
            batch = self.batch = ObjectBatch([self.obj.id])
        found = batch.found.get(key)
        if found is None:
            found = batch.found[key] = load(batch.ids)
        return found

    @property
    def kind(self) -> FileKind:
        return self.__parent__.kind

    @property
    def sample_ctx(self) -> Any:
        return self.__parent__.__parent__

    def child(self, key: str) -> Any:
        if key == "files":
            return ObjectFiles(self.request, key, self)
        raise KeyError(key)

    def file_resource(self, sequence_file: SequenceFile) -> SequenceFileResource:
        return SequenceFileResource(self.request, str(sequence_file.id),
                                    ObjectFiles(self.request, "files", self), sequence_file)


class ObjectFiles(Context):
    __parent__: SequencingObjectResource

    def child(self, key: str) -> Any:
        file_id = int_key(key)
        for sequence_file in self.__parent__.obj.files:
            if sequence_file.id == file_id:
                return SequenceFileResource(self.request, key, self, sequence_file)
        raise KeyError(key)


class SequenceFileResource(Context):
    __parent__: ObjectFiles

    def __init__(self, request: Any, name: str, parent: ObjectFiles,
                 sequence_file: SequenceFile) -> None:
        super().__init__(request, name, parent)
        self.file = sequence_file

    @property
    def object_ctx(self) -> SequencingObjectResource:
        return self.__parent__.__parent__

    def child(self, key: str) -> Any:
        if key == "qc":
            record = self.db.scalar(select(QCRecord).where(QCRecord.file_id == self.file.id))
            if record is None:
                raise KeyError(key)
            return QCResource(self.request, key, self, record)
        raise KeyError(key)


class QCResource(Context):
    def __init__(self, request: Any, name: str, parent: SequenceFileResource,
                 record: QCRecord) -> None:
        super().__init__(request, name, parent)
        self.record = record
