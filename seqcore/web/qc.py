"""A file's QC report as a lab reads FastQC's: each module's pass/warn/fail
(:mod:`seqcore.qc.verdicts`) beside its plot, drawn on the server as inline SVG
(:mod:`seqcore.web.charts`), so the page needs no JavaScript.

``/-/files/{id}/qc`` reaches the file through the same traversal context and ACL as REST's
``/api/samples/{sid}/sequenceFiles/{fid}/qc``: an account that may not read the sample gets
404, as from the API. A module whose numbers the stored record does not hold is shown as
"not measured", never as passing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from markupsafe import Markup
from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.models.sequencing import QCRecord, SequencingObject, SequencingObjectFile
from seqcore.qc import verdicts as qc
from seqcore.qc.report import QCReport
from seqcore.web import charts
from seqcore.web.guard import add_page, context_at, not_found, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.render import page

# FastQC's background zones of the per-base quality plot.
QUALITY_BANDS = (charts.Band(28, 1000, "band-pass"), charts.Band(20, 28, "band-warn"),
                 charts.Band(0, 20, "band-fail"))


def file_of(request: Request, file_id: str) -> tuple[Any, Any]:
    """The file's REST context and its QC context (``None`` until the worker has made the
    record); 404 when the caller may not read the file's sample, as REST answers."""
    if not file_id.isdigit():
        raise not_found()
    sample_id = request.db.scalar(
        select(SequencingObject.sample_id)
        .join(SequencingObjectFile, SequencingObjectFile.object_id == SequencingObject.id)
        .where(SequencingObjectFile.file_id == int(file_id)))
    if sample_id is None:
        raise not_found()
    context = context_at(request, "samples", str(sample_id), "sequenceFiles", file_id)
    try:
        return context, context["qc"]
    except KeyError:
        return context, None


def plots(request: Request, report: QCReport) -> dict[str, Markup]:
    """The plots of the modules the record has numbers for, by FastQC module name."""
    def t(message: Any, **mapping: Any) -> str:
        return translate(request, message, **mapping)

    groups = report.grouped_per_base_quality()
    boxes = [charts.Box(label=g.label, mean=g.mean, low=g.percentile_10, lower=g.lower_quartile,
                        median=g.median, upper=g.upper_quartile, high=g.percentile_90)
             for g in groups]
    highest = max([40.0] + [b.high for b in boxes if b.high is not None] + [b.mean for b in boxes])
    drawn = {
        qc.PER_BASE_QUALITY: charts.box_plot(
            "plot-per-base-quality", t(_("Quality scores across all bases")),
            t(_("For each read position: a box from the lower to the upper quartile, a line "
                "at the median, whiskers at the 10th and 90th percentiles and a line through "
                "the means, over FastQC's good (28 and above), reasonable (20 to 28) and poor "
                "(below 20) zones.")),
            boxes, x_label=t(_("Position in read (bp)")), y_label=t(_("Phred score")),
            y_range=(0, highest + 1), bands=QUALITY_BANDS),
    }
    content = qc.grouped_content(report)
    if content:
        starts = [float(row.label.split("-")[0]) for row in content]
        drawn[qc.PER_BASE_CONTENT] = charts.line_chart(
            "plot-per-base-content", t(_("Sequence content across all bases")),
            t(_("For each read position: the percentage of G, A, T and C among its bases.")),
            [charts.Series(base, [(x, value) for x, value in zip(
                starts, (getattr(row, base.lower()) for row in content), strict=True)
                if value is not None]) for base in ("G", "A", "T", "C")],
            x_label=t(_("Position in read (bp)")), y_label=t(_("Percentage")),
            y_range=(0, 100))
        drawn[qc.PER_BASE_N] = charts.line_chart(
            "plot-per-base-n", t(_("N content across all bases")),
            t(_("For each read position: the percentage of its bases that are N.")),
            [charts.Series("N", [(x, row.n) for x, row in zip(starts, content, strict=True)])],
            x_label=t(_("Position in read (bp)")), y_label=t(_("Percentage")),
            y_range=(0, 100))
    if report.gc_distribution:
        counts = report.gc_distribution
        drawn[qc.PER_SEQUENCE_GC] = charts.line_chart(
            "plot-per-sequence-gc", t(_("GC distribution over all sequences")),
            t(_("The number of reads with each GC percentage, against the normal "
                "distribution FastQC fits to them (dashed).")),
            [charts.Series(t(_("GC count per read")),
                           [(float(p), c) for p, c in enumerate(counts)]),
             charts.Series(t(_("Theoretical distribution")),
                           [(float(p), c) for p, c in enumerate(qc.theoretical_gc(counts))],
                           dashed=True)],
            x_label=t(_("Mean GC content (%)")), y_label=t(_("Reads")), x_range=(0, 100))
    lengths = sorted(report.length_counts.items())
    if lengths:
        title = t(_("Distribution of sequence lengths over all sequences"))
        words = t(_("The number of reads of each length."))
        if len(lengths) <= 40:
            drawn[qc.LENGTH_DISTRIBUTION] = charts.bar_chart(
                "plot-length-distribution", title, words,
                [(str(length), float(count)) for length, count in lengths],
                x_label=t(_("Sequence length (bp)")), y_label=t(_("Reads")))
        else:
            drawn[qc.LENGTH_DISTRIBUTION] = charts.line_chart(
                "plot-length-distribution", title, words,
                [charts.Series(t(_("Reads")), [(float(n), float(c)) for n, c in lengths])],
                x_label=t(_("Sequence length (bp)")), y_label=t(_("Reads")))
    _fastqc_tables(t, report, drawn)
    distribution = sorted(report.per_sequence_quality.items())
    if distribution:
        drawn[qc.PER_SEQUENCE_QUALITY] = charts.line_chart(
            "plot-per-sequence-quality", t(_("Quality score distribution over all sequences")),
            t(_("The number of reads with each mean quality score.")),
            [charts.Series(t(_("Reads")), [(float(q), float(n)) for q, n in distribution])],
            x_label=t(_("Mean sequence quality (Phred score)")), y_label=t(_("Reads")))
    return drawn


def _fastqc_tables(t: Callable[..., str], report: QCReport, drawn: dict[str, Markup]) -> None:
    """The plots of the duplication, adapter and per-tile modules, drawn as FastQC draws
    them, when the record holds their tables."""
    levels = report.duplication
    if levels is not None:
        drawn[qc.DUPLICATION_LEVELS] = charts.line_chart(
            "plot-duplication-levels",
            t(_("Percent of sequences remaining if deduplicated: ${percentage} %"),
              percentage=f"{levels.deduplicated_percentage:.2f}"),
            t(_("For each duplication level (the number of copies of a sequence): the "
                "percentage of the distinct sequences, and of all reads, at that level, as "
                "FastQC estimates them from the first 100,000 distinct sequences.")),
            [charts.Series(t(_("% Deduplicated sequences")),
                           [(float(i), value) for i, value in enumerate(levels.deduplicated, 1)]),
             charts.Series(t(_("% Total sequences")),
                           [(float(i), value) for i, value in enumerate(levels.total, 1)])],
            x_label=t(_("Sequence duplication level")), y_label=t(_("Percentage")),
            y_range=(0, 100), x_range=(1, len(levels.levels)),
            x_ticks=[(float(i), label) for i, label in enumerate(levels.levels, 1)])
    adapters = report.adapter_content
    if adapters is not None and adapters.positions:
        starts = [float(label.split("-")[0]) for label in adapters.positions]
        drawn[qc.ADAPTER_CONTENT] = charts.line_chart(
            "plot-adapter-content", t(_("% Adapter")),
            t(_("For each adapter of FastQC's list and each read position: the percentage of "
                "reads in which the adapter was found at or before that position. The "
                "highest is ${adapter}: ${percentage} %."),
              adapter=max(zip(adapters.adapters, adapters.percentages, strict=True),
                          key=lambda item: max(item[1], default=0.0))[0],
              percentage=f"{max(max(row, default=0.0) for row in adapters.percentages):.2f}"),
            [charts.Series(name, list(zip(starts, row, strict=True)))
             for name, row in zip(adapters.adapters, adapters.percentages, strict=True)],
            x_label=t(_("Position in read (bp)")), y_label=t(_("Percentage of reads")),
            y_range=(0, 100))
    tiles = report.per_tile_quality
    if tiles is not None:
        cells = [(tile, position, value) for tile, row in zip(tiles.tiles, tiles.deviations,
                                                              strict=True)
                 for position, value in zip(tiles.positions, row, strict=True)]
        tile, position, value = max(cells, key=lambda cell: abs(cell[2]))
        drawn[qc.PER_TILE_QUALITY] = charts.heatmap(
            "plot-per-tile-quality", t(_("Quality per tile")),
            t(_("For each tile (rows) and read position (columns): the tile's mean quality "
                "minus the average of all tiles' means there. Blue is at or above the "
                "average, yellow 5 below, red 10 or more below. The largest difference is "
                "tile ${tile} at position ${position}: ${deviation}."),
              tile=tile, position=position, deviation=f"{value:.2f}"),
            [(str(number), row) for number, row in zip(tiles.tiles, tiles.deviations,
                                                       strict=True)],
            tiles.positions, x_label=t(_("Position in read (bp)")), y_label=t(_("Tile")),
            limit=10)


def length_words(request: Request, report: QCReport) -> str:
    if report.total_sequences == 0:
        return translate(request, _("No reads."))
    if report.min_length == report.max_length:
        return translate(request, _("Every read is ${length} bases long."),
                         length=report.max_length)
    return translate(request, _("Reads are ${low} to ${high} bases long."),
                     low=report.min_length, high=report.max_length)


def file_qc_page(request: Request) -> Response:
    signed_in(request)
    context, qc_context = file_of(request, request.matchdict["id"])
    report = judged = drawn = None
    if qc_context is not None:
        report = qc.report_of(qc_context.record.report)
        judged = qc.verdicts(report)
        drawn = plots(request, report)
    sample = context.object_ctx.sample_ctx.sample
    return page(request, "qc.mako", file=context.file, sample=sample, report=report,
                verdicts=judged, plots=drawn or {}, worst=qc.worst(judged or []),
                length_words=length_words(request, report) if report else "",
                record=qc_context.record if qc_context else None)


def summaries(db: Any, file_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Each file's gravest verdict and the number of modules per verdict, for the files that
    have a QC record (one statement)."""
    ids = list(file_ids)
    if not ids:
        return {}
    found: dict[int, dict[str, Any]] = {}
    for record in db.scalars(select(QCRecord).where(QCRecord.file_id.in_(ids))):
        judged = qc.verdicts(qc.report_of(record.report))
        counts = {str(v): sum(1 for item in judged if item.verdict == v) for v in qc.Verdict}
        found[record.file_id] = {"worst": qc.worst(judged), "counts": counts}
    return found


def includeme(config: Configurator) -> None:
    add_page(config, "web.qc.file", "/-/files/{id}/qc", file_qc_page)


__all__ = ["file_of", "file_qc_page", "plots", "summaries"]
