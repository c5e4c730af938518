"""The pipeline: count read lengths per sample. It runs in a worker process (or on another
machine), so it reads only the files it is given and writes only its outputs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import dnaio

from seqcore.plugin import PipelineContext, PipelineError

OUTPUT = "histograms.json"


def histogram(paths: tuple[Path, ...], bin_width: int, counts: Counter[int]) -> tuple[int, int]:
    """Add the reads of ``paths`` (FASTQ, plain or gzip) to ``counts``, keyed by the first
    length of each bin; returns (reads, bases) added."""
    reads = bases = 0
    for path in paths:
        with dnaio.open(path) as records:
            for record in records:
                length = len(record.sequence)
                counts[length // bin_width * bin_width] += 1
                reads += 1
                bases += length
    return reads, bases


def run(ctx: PipelineContext) -> dict[str, Path]:
    """``{"histograms": histograms.json}``: per sample, reads, mean length and the bins."""
    bin_width = int(ctx.parameters["bin_width"])
    totals: dict[int, tuple[Counter[int], list[int]]] = {}
    for item in ctx.inputs:
        counts, sums = totals.setdefault(item.sample_id, (Counter(), [0, 0]))
        reads, bases = histogram(item.files, bin_width, counts)
        sums[0] += reads
        sums[1] += bases
        ctx.log(f"{item.sample_name}: {reads} reads in object {item.object_id}")
    if not any(sums[0] for _, sums in totals.values()):
        raise PipelineError("The input files hold no reads.")
    samples = {str(sample_id): {"reads": sums[0], "mean_length": round(sums[1] / sums[0], 1),
                                "histogram": sorted(counts.items())}
               for sample_id, (counts, sums) in totals.items() if sums[0]}
    out = ctx.output_path(OUTPUT)
    out.write_text(json.dumps({"bin_width": bin_width, "samples": samples}, indent=1))
    return {"histograms": out}
