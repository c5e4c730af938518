"""Write-back: the filtered assembly (contigs-with-repeats, as in IRIDA) becomes an
assembly of the sample, linked to the submission."""

from __future__ import annotations

from typing import Any

from seqcore_assemblies.results import save_assembly


def write_back(ctx: Any) -> None:
    """One sample (``assembly``): its ``contigs-with-repeats``. Several
    (``assembly-collection``): each sample's own ``sample-<id>-contigs-with-repeats``, never
    the combined file."""
    samples = ctx.samples()
    for sample_id in samples:
        own = f"sample-{sample_id}-contigs-with-repeats"
        if own in ctx.outputs:
            save_assembly(ctx, sample_id, own, "contigs-with-repeats.fasta")
        elif len(samples) == 1 and "contigs-with-repeats" in ctx.outputs:
            save_assembly(ctx, sample_id, "contigs-with-repeats")
