"""A project's QC overview, as MultiQC gives one for a run: one row per sample with its
reads, bases, coverage and each file's gravest FastQC verdict, and a chart of the samples'
coverage against the project's limits.

Coverage is IRIDA's: the sample's bases (every file of every sequencing object, as the QC
records count them) divided by the project's genome size, checked against the project's
minimum and maximum coverage. The page reaches the project through the same traversal
context and ACL as REST (404 for whoever may not read it) and shows sample names and QC
numbers only, never metadata. The table is paged on the server with a fixed number of
statements whatever the page size: the count and the page of samples, their files with
their QC records, and the coverage of every (filtered) sample for the chart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from markupsafe import Markup, escape
from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import Select, func, select

from seqcore.models.sample import ProjectSample, Sample
from seqcore.models.sequencing import (
    QCRecord,
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
)
from seqcore.qc import verdicts as qc
from seqcore.web import charts
from seqcore.web.guard import add_page, context_at, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.labels import VERDICTS
from seqcore.web.render import page
from seqcore.web.table import Cell, Column, Filter, Row, Table, TablePage, page_of

OVERVIEW_TABLE = Table(
    "sample-qc",
    (Column("name", _("Sample"), sortable=True), Column("files", _("Files")),
     Column("reads", _("Reads"), numeric=True), Column("bases", _("Bases"), numeric=True),
     Column("coverage", _("Coverage"), numeric=True), Column("verdicts", _("QC per file"))),
    filters=(Filter("q", _("Name contains")),), default_sort="name",
    caption=_("QC per sample"))


@dataclass
class SampleQC:
    """One sample's row: its sequencing objects by kind, and per file its name, id and
    stored QC record (``None`` until the file has been QC'd)."""

    sample_id: int
    name: str
    kinds: dict[str, set[int]] = field(default_factory=dict)
    files: list[tuple[int, str, Mapping[str, Any] | None]] = field(default_factory=list)

    @property
    def reads(self) -> int:
        return sum(int(report["totalSequences"]) for _i, _n, report in self.files if report)

    @property
    def bases(self) -> int:
        return sum(int(report["totalBases"]) for _i, _n, report in self.files if report)


def coverage_flag(coverage: float | None, project: Any) -> str | None:
    """``"low"`` below the project's minimum coverage, ``"high"`` above its maximum."""
    if coverage is None:
        return None
    if project.minimum_coverage is not None and coverage < project.minimum_coverage:
        return "low"
    if project.maximum_coverage is not None and coverage > project.maximum_coverage:
        return "high"
    return None


def _samples(project_id: int, text: str) -> Select[int, str]:
    statement = (select(Sample.id, Sample.name)
                 .join(ProjectSample, ProjectSample.sample_id == Sample.id)
                 .where(ProjectSample.project_id == project_id))
    if text:
        statement = statement.where(Sample.name.ilike(f"%{text}%"))
    return statement


def _files(db: Any, samples: Sequence[Any]) -> list[SampleQC]:
    """The page's samples with their files and QC records (one statement)."""
    found = {row.id: SampleQC(row.id, row.name) for row in samples}
    if not found:
        return []
    rows = db.execute(
        select(SequencingObject.sample_id, SequencingObject.id, SequencingObject.kind,
               SequenceFile.id, SequenceFile.file_name, QCRecord.report)
        .join(SequencingObjectFile, SequencingObjectFile.object_id == SequencingObject.id)
        .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
        .outerjoin(QCRecord, QCRecord.file_id == SequenceFile.id)
        .where(SequencingObject.sample_id.in_(list(found)))
        .order_by(SequencingObject.sample_id, SequencingObject.id,
                  SequencingObjectFile.position))
    for sample_id, object_id, kind, file_id, file_name, report in rows:
        entry = found[sample_id]
        entry.kinds.setdefault(kind, set()).add(object_id)
        entry.files.append((file_id, file_name, report))
    return list(found.values())


def _bases_by_sample(db: Any, project_id: int, text: str) -> list[tuple[str, int]]:
    """Every (filtered) sample of the project with QC'd files and its bases, for the chart
    (one statement, summed by the database from the stored records)."""
    bases = func.sum(QCRecord.report["totalBases"].as_integer())
    statement = (_samples(project_id, text)
                 .join(SequencingObject, SequencingObject.sample_id == Sample.id)
                 .join(SequencingObjectFile,
                       SequencingObjectFile.object_id == SequencingObject.id)
                 .join(QCRecord, QCRecord.file_id == SequencingObjectFile.file_id)
                 .with_only_columns(Sample.name, bases)
                 .group_by(Sample.id, Sample.name).order_by(Sample.name, Sample.id))
    return [(name, int(total or 0)) for name, total in db.execute(statement)]


def _badge(t: Callable[..., str], verdict: qc.Verdict | None) -> Markup:
    if verdict is None:
        return Markup('<span class="muted">{}</span>').format(t(_("Not measured")))
    return Markup('<span class="badge {}">{}</span>').format(verdict.value,
                                                             t(VERDICTS[verdict.value]))


def _verdict_cell(request: Request, t: Callable[..., str], entry: SampleQC) -> Cell:
    items = []
    for file_id, file_name, report in entry.files:
        link = Markup('<a href="{}">{}</a>').format(
            request.route_path("web.qc.file", id=file_id), file_name)
        if report is None:
            state = Markup('<span class="muted">{}</span>').format(t(_("No QC yet")))
        else:
            state = _badge(t, qc.worst(qc.verdicts(qc.report_of(report))))
        items.append(Markup('<li data-file="{}">{} {}</li>').format(file_id, link, state))
    if not items:
        return Cell(t(_("No files")))
    return Cell(html=str(Markup('<ul class="plain">{}</ul>').format(Markup("").join(items))))


def _coverage_cell(t: Callable[..., str], coverage: float | None, flag: str | None) -> Cell:
    if coverage is None:
        return Cell("-")
    shown = escape(f"{coverage:.1f}x")
    if flag == "low":
        return Cell(html=str(Markup('<span class="coverage-low" data-flag="low">{} {}</span>')
                             .format(shown, _badge(t, qc.Verdict.FAIL))
                             + Markup(' <span class="muted">{}</span>').format(
                                 t(_("below the minimum")))))
    if flag == "high":
        return Cell(html=str(Markup('<span class="coverage-high" data-flag="high">{} {}</span>')
                             .format(shown, _badge(t, qc.Verdict.WARN))
                             + Markup(' <span class="muted">{}</span>').format(
                                 t(_("above the maximum")))))
    return Cell(str(shown))


def project_qc_page(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    project = context.project
    db = request.db

    def t(message: Any, **mapping: Any) -> str:
        return translate(request, message, **mapping)

    state = OVERVIEW_TABLE.state(request.GET)
    text = state.filters.get("q", "")
    samples, total = page_of(db, _samples(project.id, text), state, {"name": Sample.name},
                             Sample.id, cast(Callable[[Any], Row], lambda row: row))
    genome = project.genome_size or None
    rows = []
    for entry in _files(db, cast(Sequence[Any], samples)):
        coverage = entry.bases / genome if genome and any(r for *_x, r in entry.files) \
            else None
        kinds = ", ".join(f"{kind}: {len(ids)}" for kind, ids in sorted(entry.kinds.items()))
        rows.append(Row(str(entry.sample_id), (
            Cell(entry.name, request.route_path("web.sample", id=entry.sample_id)),
            Cell(t(_("${count} files (${objects})"), count=len(entry.files), objects=kinds)
                 if entry.files else "0"),
            Cell(f"{entry.reads:,}"), Cell(f"{entry.bases:,}"),
            _coverage_cell(t, coverage, coverage_flag(coverage, project)),
            _verdict_cell(request, t, entry))))
    chart = None
    if genome:
        points = [(float(index), bases / genome, name) for index, (name, bases)
                  in enumerate(_bases_by_sample(db, project.id, text), start=1)]
        if points:
            chart = _coverage_chart(t, project, points)
    return page(request, "project_qc.mako", project=project, chart=chart,
                table=TablePage(OVERVIEW_TABLE, state, rows, total))


def _coverage_chart(t: Callable[..., str], project: Any,
                    points: list[tuple[float, float, str]]) -> Markup:
    rules = []
    if project.minimum_coverage is not None:
        rules.append((float(project.minimum_coverage),
                      t(_("Minimum coverage (${coverage}x)"), coverage=project.minimum_coverage)))
    if project.maximum_coverage is not None:
        rules.append((float(project.maximum_coverage),
                      t(_("Maximum coverage (${coverage}x)"), coverage=project.maximum_coverage)))
    names = [name for _x, _y, name in points]
    shown = charts.thinned(names, 12)
    low = [name for _x, y, name in points if coverage_flag(y, project) == "low"]
    high = [name for _x, y, name in points if coverage_flag(y, project) == "high"]
    return charts.scatter_chart(
        "plot-coverage", t(_("Coverage per sample")),
        t(_("One point per sample with QC'd files, in name order: its bases divided by the "
            "project's genome size, with the project's minimum and maximum coverage as "
            "dashed lines. ${low} samples are below the minimum, ${high} above the maximum."),
          low=len(low), high=len(high)),
        points, x_label=t(_("Sample (by name)")), y_label=t(_("Coverage (x)")), rules=rules,
        x_range=(0.5, len(points) + 0.5),
        x_ticks=[(float(i), name) for i, name in enumerate(names, start=1) if i - 1 in shown])


def includeme(config: Configurator) -> None:
    add_page(config, "web.project.qc", "/-/projects/{id}/qc", project_qc_page)


__all__ = ["OVERVIEW_TABLE", "SampleQC", "coverage_flag", "project_qc_page"]
