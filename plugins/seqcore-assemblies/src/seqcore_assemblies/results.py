"""Saving an analysis output back to a sample as one of its assemblies."""

from __future__ import annotations

from typing import Any

from seqcore.plugin import SequenceFile
from seqcore_assemblies.models import Assembly


def save_assembly(ctx: Any, sample_id: int, key: str, file_name: str | None = None
                  ) -> Assembly:
    """Copy output ``key`` of the completing submission into storage as an assembly of the
    sample, linked to the submission (``assembly/analysis``). ``ctx`` is the write-back
    context the analysis framework passes to ``write_back``."""
    output = ctx.outputs[key]
    relative, digest, size = ctx.storage.store_file(ctx.output_path(key),
                                                    file_name or output.file_name, ctx.manager)
    stored = SequenceFile(path=relative, file_name=file_name or output.file_name, size=size,
                          upload_sha256=digest)
    assembly = Assembly(sample_id=sample_id, file=stored, submission_id=ctx.submission.id)
    ctx.db.add(assembly)
    ctx.db.flush()
    return assembly
