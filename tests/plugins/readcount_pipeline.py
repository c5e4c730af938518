"""The readcount pipeline: plain Python over the input FASTQ files."""

import gzip
import json
import time

from seqcore.analysis.pipeline import PipelineError


def _open(path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rt") if magic == b"\x1f\x8b" else open(path)


def count_reads(ctx):
    if ctx.parameters["sleep"]:
        ctx.log(f"sleeping {ctx.parameters['sleep']} s")
        time.sleep(ctx.parameters["sleep"])
    if ctx.parameters["fail"]:
        raise PipelineError("asked to fail")
    per_sample = {}
    rows = [f"{ctx.settings['seqcore.readcount.sample_header']}\tfile\treads\tbases"]
    for done, item in enumerate(ctx.inputs, start=1):
        totals = per_sample.setdefault(str(item.sample_id), {"name": item.sample_name,
                                                             "reads": 0, "bases": 0})
        for path in item.files:
            reads = bases = 0
            with _open(path) as fh:
                for n, line in enumerate(fh):
                    if n % 4 == 1:
                        length = len(line.rstrip("\n"))
                        if length >= ctx.parameters["min_length"]:
                            reads += 1
                            bases += length
            rows.append(f"{item.sample_name}\t{path.name}\t{reads}\t{bases}")
            totals["reads"] += reads
            totals["bases"] += bases
        ctx.progress(done / len(ctx.inputs), f"counted {item.sample_name}")
    counts = ctx.output_path("counts.tsv")
    counts.write_text("\n".join(rows) + "\n")
    summary = ctx.output_path("summary.json")
    summary.write_text(json.dumps({"samples": per_sample}))
    return {"counts": counts, "summary": summary}
