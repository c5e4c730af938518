"""The ``fast5`` file kind: stored as uploaded (never decompressed), no FASTQ QC."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seqcore.plugin import (
    Fast5Check,
    FileKind,
    MigrationSource,
    SequencingObjectResource,
    files_of,
    hookimpl,
)
from seqcore_fast5.models import Fast5Object


class Fast5Resource(SequencingObjectResource):
    """A FAST5 object."""


def fast5_check(settings: Mapping[str, Any]) -> Fast5Check:
    return Fast5Check()


def prepare(request: Any, obj: Any, upload: Any) -> None:
    check = upload.parts["file"].check
    request.db.add(Fast5Object(object_id=obj.id, fast5_type=check.fast5_type))


def build(db: Any, obj: Any, files: list[tuple[str, bytes]]) -> None:
    """The test kit's FAST5 object: its type read from the content, as an upload's is."""
    check = Fast5Check()
    check.feed(files[0][1])
    db.add(Fast5Object(object_id=obj.id, fast5_type=check.fast5_type))


def sample_files() -> list[tuple[str, bytes]]:
    """A small file that starts as HDF5 does (``SINGLE``): the signature, a version 0
    superblock (8-byte offsets and lengths; its end of file the file's size), then data."""
    payload = bytes(range(256)) * 8
    undefined = b"\xff" * 8
    size = 8 + 16 + 32 + len(payload)
    return [("reads.fast5", b"\x89HDF\r\n\x1a\n"
             + bytes([0, 0, 0, 0, 0, 8, 8, 0, 4, 0, 16, 0, 0, 0, 0, 0])
             + bytes(8) + undefined + size.to_bytes(8, "little") + undefined + payload)]


def describe(request: Any, context: Fast5Resource) -> dict[str, Any]:
    record = request.db.get(Fast5Object, context.obj.id)
    return {"file": files_of(request, context)[0],
            "fast5Type": record.fast5_type if record else "UNKNOWN"}


@hookimpl
def register_models() -> list[type]:
    return [Fast5Object]


@hookimpl
def register_migrations() -> list[MigrationSource]:
    return [MigrationSource("fast5", "seqcore_fast5:migrations/versions")]


@hookimpl
def register_file_kinds() -> list[FileKind]:
    return [FileKind(name="fast5", path_segment="fast5",
                     collection_rel="sample/sequenceFiles/fast5", files=1,
                     content_check=fast5_check, media_types=("application/octet-stream",),
                     qc=False, decompress=False, prepare=prepare, describe=describe,
                     upload_response="file", object_context=Fast5Resource,
                     label="FAST5 files", sample_files=sample_files, factory=build)]
