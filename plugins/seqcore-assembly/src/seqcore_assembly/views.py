"""The analysis page's view of an assembly: the contigs' statistics and a plot of each
contig's length against its coverage (repeats stand out as contigs of high coverage, and
their copy number is shown), drawn on the server (``register_views``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqcore.plugin import OutputView, ViewAssets, ViewInput, scatter_chart

from .contigs import n50, read_fasta

HERE = Path(__file__).resolve().parent
TOP_CONTIGS = 20  # the longest contigs listed with their copy number


def contigs_context(view: ViewInput) -> dict[str, Any]:
    translate = view.translate
    contigs = list(read_fasta(view.path))
    lengths = [len(contig) for contig in contigs]
    total = sum(lengths)
    gc = sum(c.sequence.upper().count("G") + c.sequence.upper().count("C") for c in contigs)
    acgt = sum(sum(c.sequence.upper().count(b) for b in "ACGT") for c in contigs)
    value_n50, in_n50 = n50(lengths)
    covered = [(len(c), c.coverage, c.header.split()[0]) for c in contigs
               if c.coverage is not None]
    # Coverage weighted by length: the single-copy level repeats are compared with.
    weight = sum(length for length, _cov, _name in covered)
    average = sum(length * (cov or 0.0) for length, cov, _name in covered) / weight \
        if weight else None
    longest = sorted(contigs, key=len, reverse=True)[:TOP_CONTIGS]
    rows = [{"name": c.header.split()[0], "length": len(c), "coverage": c.coverage,
             "copies": round(c.coverage / average) if average and c.coverage else None}
            for c in longest]
    plot = scatter_chart(
        f"contigs-{view.item.id}", translate("Contig length and coverage"),
        translate("One point per contig: its length (log scale) and its coverage."),
        [(float(length), float(cov or 0.0), name) for length, cov, name in covered],
        x_label=translate("Contig length (bp)"), y_label=translate("Coverage"),
        log_x=True) if covered else None
    return {"count": len(contigs), "total": total, "n50": value_n50, "in_n50": in_n50,
            "longest": max(lengths, default=0), "gc": 100 * gc / acgt if acgt else None,
            "average": average, "rows": rows, "plot": plot, "shown": len(rows)}


def register() -> list[Any]:
    views: list[Any] = [ViewAssets("assembly", HERE / "templates",
                                   translations=HERE / "locale")]
    for analysis_type in ("assembly", "assembly-collection"):
        views.append(OutputView(analysis_type, "outputFile/contigs-with-repeats",
                                "assembly/contigs.mako", context=contigs_context))
    return views
