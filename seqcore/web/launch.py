"""The launch form: the analysis types installed, then the chosen type's parameters as form
fields made from the same declaration the API checks against (defaults, choices, bounds),
for the samples selected in a project's table. The launch is the domain's
(:func:`seqcore.analysis.service.launch`), so the form refuses what REST and GraphQL refuse,
with the same words, every problem at once. A type that analyses one sample at a time gets
one submission per sample."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response

from seqcore.analysis.launching import LaunchRequest
from seqcore.analysis.registry import analysis_registry
from seqcore.analysis.service import launch
from seqcore.errors.domain import Invalid
from seqcore.security.fieldaccess import Caller, readable_fields
from seqcore.web.guard import PageError, add_page, context_at, signed_in
from seqcore.web.i18n import _
from seqcore.web.projects import selected_ids
from seqcore.web.render import page


def launch_page(request: Request) -> Response:
    identity = signed_in(request)
    project_id = request.params.get("project", "")
    if not project_id:
        raise PageError(400, _("Launch an analysis from a project's samples table."))
    context = context_at(request, "projects", project_id)
    project = context.project
    access = readable_fields(request.db, Caller.of(identity), project.id)
    ids = selected_ids(request, project.id, access)
    registry = analysis_registry(request.registry)
    types = sorted(registry.types.values(), key=lambda t: t.label)
    chosen = registry.type(request.POST.get("analysis_type", "")) if request.POST.get(
        "analysis_type") else None
    values = {p.name: request.POST.get(f"parameter.{p.name}", "")
              for p in (chosen.parameters if chosen else ())}
    problems: dict[str, str] = {}
    if chosen is not None and request.POST.get("launch"):
        try:
            submissions = _launch(request, chosen, ids, project.id, values)
        except Invalid as error:
            request.tm.doom()
            problems = {key: " ".join(messages) for key, messages in error.problems.items()}
            if error.has_message or not problems:
                problems["form"] = error.message
        else:
            request.session.flash(request.localizer.translate(
                _("Analysis launched.") if len(submissions) == 1 else
                _("${count} analyses launched.", mapping={"count": len(submissions)})))
            if len(submissions) == 1:
                return HTTPSeeOther(location=request.route_path(
                    "web.analysis", id=submissions[0].id))
            return HTTPSeeOther(location=request.route_path("web.analyses"))
    return page(request, "launch.mako", status=400 if problems else 200, project=project,
                ids=ids, types=types, chosen=chosen, values=values, problems=problems,
                name=request.POST.get("name", ""))


def _launch(request: Request, analysis_type: Any, ids: list[int], project_id: int,
            values: dict[str, str]) -> list[Any]:
    parameters = {key: value for key, value in values.items() if value != ""}
    name = request.POST.get("name", "").strip() or None
    write_back = request.POST.get("write_back") == "on"
    groups = [[sample_id] for sample_id in ids] if analysis_type.samples == "one" else [ids]
    return [launch(request, LaunchRequest(
        analysis_type=analysis_type.name, name=name, sample_ids=tuple(group),
        project_ids=(project_id,), parameters=parameters, write_back=write_back))
        for group in groups]


def includeme(config: Configurator) -> None:
    add_page(config, "web.analyses.new", "/-/analyses/new", launch_page, method="POST")
