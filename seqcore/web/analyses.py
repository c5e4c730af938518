"""Analyses: the list of the submissions an account may read, with their state kept current
without reloading (the list's frame reloads itself while something runs), and a
submission's page (inputs, parameters, state history, the end of its log, outputs by key,
each rendered by the view of the plugin that owns it, each downloadable from the page with
the session, through the same traversal context and ACL as REST's output file). Workflow
executions of pipeline descriptors are submissions like any other, so they are listed and
shown here too."""

from __future__ import annotations

from html import escape
from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import FileIter, FileResponse, Response
from sqlalchemy import select

from seqcore.analysis.logs import log_tail
from seqcore.analysis.registry import analysis_registry
from seqcore.files.disposition import content_disposition
from seqcore.models.analysis import AnalysisState, AnalysisSubmission
from seqcore.security.access import SUBMISSION
from seqcore.web.guard import add_page, context_at, signed_in
from seqcore.web.i18n import _
from seqcore.web.labels import STATES
from seqcore.web.pluginviews import output_views
from seqcore.web.render import page
from seqcore.web.table import Cell, Column, Filter, Row, Table, TablePage, page_of

FINISHED = {AnalysisState.COMPLETED.value, AnalysisState.ERROR.value}

TABLE = Table(
    "analyses",
    (Column("name", _("Name"), sortable=True), Column("type", _("Type"), sortable=True),
     Column("state", _("State"), sortable=True), Column("created", _("Created"), sortable=True)),
    filters=(Filter("q", _("Name contains")),
             Filter("state", _("State"), "choice",
                    tuple((state.value, STATES[state.value]) for state in AnalysisState))),
    default_sort="created", default_descending=True, caption=_("Analyses"))


def analyses_page(request: Request) -> Response:
    identity = signed_in(request)
    state = TABLE.state(request.GET)
    statement = select(AnalysisSubmission).where(
        SUBMISSION.readable(identity.user_id, identity.role))
    if state.filters.get("q"):
        statement = statement.where(AnalysisSubmission.name.ilike(f"%{state.filters['q']}%"))
    if state.filters.get("state"):
        statement = statement.where(AnalysisSubmission.state == state.filters["state"])
    running = False

    def to_row(row: Any) -> Row:
        nonlocal running
        submission = row[0]
        running = running or submission.state not in FINISHED
        label = request.localizer.translate(STATES.get(submission.state, submission.state))
        return Row(str(submission.id), (
            Cell(submission.name, request.route_path("web.analysis", id=submission.id)),
            Cell(submission.analysis_type),
            Cell(html=f'<span class="badge state-{submission.state}">'
                      f'{escape(label)}</span>'),
            Cell(submission.created.strftime("%Y-%m-%d %H:%M"))))

    rows, total = page_of(request.db, statement, state,
                          {"name": AnalysisSubmission.name,
                           "type": AnalysisSubmission.analysis_type,
                           "state": AnalysisSubmission.state,
                           "created": AnalysisSubmission.created},
                          AnalysisSubmission.id, to_row)
    return page(request, "analyses.mako", table=TablePage(TABLE, state, rows, total),
                running=running)


def analysis_page(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "analysisSubmissions", request.matchdict["id"])
    submission = context.submission
    return page(request, "analysis.mako", submission=submission,
                finished=submission.state in FINISHED, log=log_tail(submission),
                outputs=output_views(request, submission))


def output_download(request: Request) -> Response:
    """An output's file, as REST's ``.../analysis/file/<id>`` serves it (a plugin's
    ``resolve_download`` first), for whoever may read the analysis."""
    signed_in(request)
    context = context_at(request, "analysisSubmissions", request.matchdict["id"], "analysis",
                         "file", request.matchdict["output"])
    submission = context.__parent__.__parent__.submission
    declared = analysis_registry(request.registry).output_keys(submission.analysis_type)
    rel = declared.get(context.output.key)
    media_type = rel.media_type if rel is not None else "application/octet-stream"
    hooked = request.registry.pm.hook.resolve_download(request=request, context=context,
                                                       media_type=media_type)
    if hooked is not None:
        return hooked
    stored = context.file
    storage = request.storage
    if not storage.is_local:
        if request.registry.settings.get("seqcore.storage.downloads") != "stream":
            # The object store's signed URL: the bytes go to the browser from the store.
            redirect = HTTPSeeOther(location=storage.signed_url(stored.path, "GET"))
            redirect.cache_control = "no-store"
            return redirect
        response = Response(app_iter=FileIter(storage.open(stored.path)),
                            content_type=media_type, content_length=storage.size(stored.path))
    else:
        response = FileResponse(str(storage.path(stored.path)), request=request,
                                content_type=media_type)
    response.content_disposition = content_disposition(stored.file_name)
    response.headers["Cache-Control"] = "no-store"
    return response


def includeme(config: Configurator) -> None:
    add_page(config, "web.analyses", "/-/analyses", analyses_page)
    add_page(config, "web.analysis", "/-/analyses/{id}", analysis_page)
    add_page(config, "web.analysis.output", "/-/analyses/{id}/outputs/{output}",
             output_download)
