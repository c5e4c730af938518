"""Writing analysis results back to samples, with provenance."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.governance.activity import Actor, operation
from seqcore.models.sample import MetadataEntry, Sample


@operation("metadata.analysis", actor=lambda db, sample_id, values, submission, *a, **k: Actor(
    "analysis", submission_id=submission.id))
def write_metadata(db: Any, sample_id: int, values: Mapping[str, str], submission: Any,
                   kind: str = "text") -> None:
    """Set metadata fields of a sample, recording the submission that wrote them."""
    now = utcnow()
    existing = {e.field: e for e in db.scalars(select(MetadataEntry).where(
        MetadataEntry.sample_id == sample_id, MetadataEntry.field.in_(list(values))))}
    for field, value in values.items():
        entry = existing.get(field)
        if entry is None:
            db.add(MetadataEntry(sample_id=sample_id, field=field, value=value, type=kind,
                                 submission_id=submission.id))
        else:
            entry.value, entry.type, entry.submission_id, entry.modified = (
                value, kind, submission.id, now)
            entry.ncbi_submission_id = None
    sample = db.get(Sample, sample_id)
    if sample is not None:
        sample.modified = now
    db.flush()


@dataclass
class WriteBack:
    """What an analysis type's ``write_back`` gets when a submission that asked for it
    completes: the worker's session and transaction, storage, the submission, and its stored
    outputs by key. Everything it writes commits with the move to ``COMPLETED``; if it
    raises, nothing it wrote is kept and the submission ends ``ERROR`` with
    ``Could not complete: <the exception>``.

    A typical write-back::

        def write_back(ctx: WriteBack) -> None:
            counts = json.loads(ctx.output_path("counts").read_text())
            for sample_id in ctx.samples():            # ints, not Sample objects
                ctx.metadata(sample_id, {"read count": str(counts[str(sample_id)])})
    """

    #: The worker's database session (joined to the completing transaction; never commit it).
    db: Any
    #: The transaction manager (``purge_files``/storage removal after commit).
    manager: Any
    #: The storage service (``IStorage``): ``storage.local_copy(relative)`` and friends.
    storage: Any
    #: The ``AnalysisSubmission`` completing (``.id``, ``.parameters``, ``.inputs``, ...).
    submission: Any
    #: The stored outputs by output key (the keys the pipeline returned): ``SequenceFile``
    #: rows, whose ``.path`` is relative to storage; read them with :meth:`output_path`.
    outputs: Mapping[str, Any]

    def output_path(self, key: str) -> Path:
        """The absolute path of the stored output ``key`` (``KeyError`` if the pipeline did
        not return it), to read it: in a local directory the stored file, from an object
        store a copy staged into the submission's work directory."""
        relative = self.outputs[key].path
        work = self.submission.work_dir
        directory = (Path(work) if work else self.storage.root / "tmp") / "staged-outputs"
        staged: Path = self.storage.stage(relative, directory)
        return staged

    def samples(self) -> list[int]:
        """The ids (ints, sorted, each once) of the samples whose sequencing objects the
        submission analysed; a pair's two files are one sample."""
        from seqcore.models.sequencing import SequencingObject

        ids = [link.object_id for link in self.submission.inputs]
        objects = self.db.scalars(select(SequencingObject.sample_id).where(
            SequencingObject.id.in_(ids)))
        return sorted(set(objects))

    def metadata(self, sample_id: int, values: Mapping[str, str], kind: str = "text") -> None:
        """Write ``{field name: value}`` (strings) to the sample's metadata, each value
        recorded as written by this submission (its provenance), replacing what the fields
        held; ``kind`` is a registered ``MetadataType``'s name."""
        write_metadata(self.db, sample_id, values, self.submission, kind)

    def attach(self, sample_id: int, keys: Iterable[str]) -> list[Any]:
        """Attach the stored outputs ``keys`` to the sample (``KeyError`` for a key the
        pipeline did not return), as IRIDA Next attaches a workflow's per-sample files when
        it updates samples. The sample's attachment and the submission's output share one
        stored file: deleting either keeps the bytes the other still uses."""
        from seqcore.models.attachment import attach_files

        files = [self.outputs[key] for key in dict.fromkeys(keys)]
        attached: list[Any] = attach_files(self.db, files, sample_id=sample_id)
        return attached
