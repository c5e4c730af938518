"""The ``unpaired`` and ``pairs`` file kinds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from seqcore.plugin import (
    ApiError,
    FastqCheck,
    FileKind,
    LinkSpec,
    MigrationSource,
    SequencingObjectResource,
    file_entry,
    files_of,
    hookimpl,
    url_for,
)
from seqcore_sequencefiles.models import Pair

FORWARD = set("1fF")
REVERSE = set("2rR")


class UnpairedResource(SequencingObjectResource):
    """A single-end file object."""


class PairResource(SequencingObjectResource):
    """A paired-end object; analysis plugins hang their ``analysis/<type>`` links here."""

    @property
    def pair(self) -> Pair | None:
        """The pair's orientation row, read for every pair of a listing's page at once (it
        is asked for the answer's files and for the ``pair/forward`` and ``pair/reverse``
        links: three statements per pair otherwise)."""
        return self.batched(Pair, self._pairs).get(self.obj.id)

    def _pairs(self, ids: list[int]) -> dict[int, Pair]:
        return {pair.object_id: pair
                for pair in self.db.scalars(select(Pair).where(Pair.object_id.in_(ids)))}

    def oriented(self) -> tuple[Any, Any]:
        """The (forward, reverse) files."""
        files = {f.id: f for f in self.obj.files}
        pair = self.pair
        if pair is None:
            first, second = self.obj.files
            return first, second
        return files[pair.forward_file_id], files[pair.reverse_file_id]


def orientation(first: str, second: str) -> tuple[int, int] | None:
    """Which name is forward: the first character where the names differ must be 1/f/F in
    one and 2/r/R in the other. ``(0, 1)``, ``(1, 0)``, or ``None`` when it can't be told."""
    for a, b in zip(first, second, strict=False):
        if a == b:
            continue
        if a in FORWARD and b in REVERSE:
            return 0, 1
        if a in REVERSE and b in FORWARD:
            return 1, 0
        return None
    return None


def fastq_check(settings: Mapping[str, Any]) -> FastqCheck:
    return FastqCheck(verify_gzip=bool(settings["seqcore.upload.verify_gzip"]))


def oriented_pair(obj: Any) -> Pair:
    """The pair's orientation from its file names; ``ValueError`` when it can't be told."""
    first, second = obj.files
    order = orientation(first.file_name, second.file_name)
    if order is None:
        raise ValueError(
            f"Cannot tell which file of the pair is forward and which is reverse: "
            f"'{first.file_name}' and '{second.file_name}' must first differ in 1/2, F/R or "
            "f/r (as in x_R1.fastq and x_R2.fastq).")
    forward, reverse = (first, second) if order == (0, 1) else (second, first)
    return Pair(object_id=obj.id, forward_file_id=forward.id, reverse_file_id=reverse.id)


def prepare_pair(request: Any, obj: Any, upload: Any) -> None:
    try:
        request.db.add(oriented_pair(obj))
    except ValueError as err:
        raise ApiError(400, message=str(err)) from err


def build_pair(db: Any, obj: Any, files: list[tuple[str, bytes]]) -> None:
    """The test kit's pair: oriented as an upload would be."""
    db.add(oriented_pair(obj))


def sample_unpaired() -> list[tuple[str, bytes]]:
    from seqcore.testing.uploads import fastq  # the test kit, only when a test asks

    return [("x.fastq", fastq(seed=3))]


def sample_pair() -> list[tuple[str, bytes]]:
    from seqcore.testing.uploads import fastq

    return [("x_R1.fastq", fastq(seed=1)), ("x_R2.fastq", fastq(seed=2))]


def describe_unpaired(request: Any, context: SequencingObjectResource) -> dict[str, Any]:
    return {"sequenceFile": files_of(request, context)[0]}


def describe_pair(request: Any, context: PairResource) -> dict[str, Any]:
    """A pair's fields. ``assembledGenome`` is the assembly made from the pair: ``None``
    here, filled through the ``describe_sequencing_object`` hook by the plugin that keeps
    assemblies (this one knows none)."""
    forward, reverse = context.oriented()
    return {
        "files": files_of(request, context),
        "forwardSequenceFile": file_entry(request, context.file_resource(forward)),
        "reverseSequenceFile": file_entry(request, context.file_resource(reverse)),
        "assembledGenome": None,
    }


def _forward(request: Any, context: PairResource) -> str:
    return url_for(request, context.file_resource(context.oriented()[0]))


def _reverse(request: Any, context: PairResource) -> str:
    return url_for(request, context.file_resource(context.oriented()[1]))


@hookimpl
def register_models() -> list[type]:
    return [Pair]


@hookimpl
def register_migrations() -> list[MigrationSource]:
    return [MigrationSource("sequencefiles", "seqcore_sequencefiles:migrations/versions")]


@hookimpl
def register_file_kinds() -> list[FileKind]:
    return [
        FileKind(name="unpaired", path_segment="unpaired",
                 collection_rel="sample/sequenceFiles/unpaired", files=1,
                 content_check=fastq_check, describe=describe_unpaired,
                 upload_response="file", default_upload=True,
                 object_context=UnpairedResource, label="single-end files",
                 input_rel="input/unpaired", sample_files=sample_unpaired,
                 sra_layout="SINGLE", attachment_format="fastq"),
        FileKind(name="pairs", path_segment="pairs",
                 collection_rel="sample/sequenceFiles/pairs", files=2,
                 content_check=fastq_check, prepare=prepare_pair, describe=describe_pair,
                 upload_response="object", object_context=PairResource,
                 label="paired-end pairs", default_input=True, input_rel="input/paired",
                 sample_files=sample_pair, factory=build_pair, sra_layout="PAIRED",
                 attachment_format="fastq"),
    ]


@hookimpl
def register_links() -> list[LinkSpec]:
    return [
        LinkSpec(PairResource, "pair/forward", _forward),
        LinkSpec(PairResource, "pair/reverse", _reverse),
    ]
