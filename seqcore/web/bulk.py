"""What the samples table's selection does: share, copy or move the samples to another
project, set a metadata field on all of them, remove them from the project, launch an analysis
on them. Each action first shows what it will do to which samples (a page with the selection
as hidden fields), then does it through the domain's operation under the permissions the APIs
ask (sharing, REST's copy and GraphQL's ``shareSamples``, and copying, GraphQL's
``copySamples`` which clones: ``sample:read`` on each and ``sample:create`` in the target;
moving: ``sample:own`` on each and ``project:write`` on both; metadata: ``sample:write`` on
each; removal: ``project:write``). Sharing, moving, metadata and removal are all or nothing;
copying clones each sample on its own, as GraphQL's ``copySamples`` does, and names the ones
it could not copy."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample, Sample
from seqcore.samples.clones import clone_samples
from seqcore.samples.metadata import metadata_changes, set_metadata
from seqcore.samples.samples import copy_samples, remove_from_project, transfer_samples
from seqcore.security.access import PROJECT
from seqcore.security.fieldaccess import Caller, readable_fields
from seqcore.security.permissions import Permission
from seqcore.web.guard import PageError, add_page, context_at, require, signed_in
from seqcore.web.i18n import _
from seqcore.web.projects import selected_ids
from seqcore.web.render import page

# "copy" shares (REST's name for it); "clone" copies as new samples (GraphQL's copySamples).
ACTIONS = {"copy": _("Share with another project"), "clone": _("Copy to another project"),
           "move": _("Move to another project"),
           "metadata": _("Set a metadata field"), "remove": _("Remove from this project")}


def _samples(request: Request, ids: list[int], permission: str) -> list[Sample]:
    """The samples, each checked for ``permission`` through its own context (404/403)."""
    samples = []
    for sample_id in ids:
        context = context_at(request, "samples", str(sample_id))
        require(request, context, permission)
        samples.append(context.sample)
    return samples


def targets(request: Request, project: Project, permission: str) -> list[Project]:
    identity = signed_in(request)
    return list(request.db.scalars(select(Project).where(
        PROJECT.condition(permission, identity.user_id, identity.role),
        Project.id != project.id).order_by(Project.name)))


def bulk(request: Request) -> Response:
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    project = context.project
    action = request.matchdict["action"]
    if action not in ACTIONS:
        raise PageError(404, _("There is nothing here, or you may not see it."))
    access = readable_fields(request.db, Caller.of(identity), project.id)
    ids = selected_ids(request, project.id, access)
    if not ids:
        raise PageError(400, _("Select at least one sample first."))
    target_permission = (Permission.SAMPLE_CREATE if action in ("copy", "clone")
                         else Permission.PROJECT_WRITE)
    if not request.POST.get("confirm"):
        names = list(request.db.scalars(select(Sample.name).where(Sample.id.in_(ids[:50]))
                                        .order_by(Sample.name)))
        return page(request, "bulk.mako", project=project, action=action,
                    heading=ACTIONS[action], ids=ids, names=names,
                    targets=targets(request, project, target_permission)
                    if action in ("copy", "clone", "move") else [],
                    fields=access.visible(_field_names(request, project.id)))
    done = _run(request, project, context, action, ids, identity, target_permission)
    request.session.flash(request.localizer.translate(done))
    return HTTPSeeOther(location=request.route_path("web.project", id=project.id))


def _field_names(request: Request, project_id: int) -> list[str]:
    from seqcore.samples.sampletable import project_field_names
    from seqcore.security.fieldaccess import ALL

    return project_field_names(request.db, project_id, ALL)


def _run(request: Request, project: Project, context: Any, action: str, ids: list[int],
         identity: Any, target_permission: str) -> Any:
    db = request.db
    count = len(ids)
    if action == "remove":
        require(request, context, Permission.PROJECT_WRITE)
        for join in db.scalars(select(ProjectSample).where(
                ProjectSample.project_id == project.id, ProjectSample.sample_id.in_(ids))):
            remove_from_project(db, request.registry.pm, join, request)
        return _("${count} samples removed from the project.", mapping={"count": count})
    if action == "metadata":
        field = request.POST.get("field", "").strip()
        value = request.POST.get("value", "")
        if not field:
            raise PageError(400, _("Name the metadata field to set."))
        samples = _samples(request, ids, Permission.SAMPLE_WRITE)
        types = request.registry.get("seqcore.metadata_types", {})
        # The REST body's shape: an entry is {"value": ...}; null removes the field.
        changes = metadata_changes({field: {"value": value} if value else None}, types,
                                   allow_delete=True)
        set_metadata(db, samples, [changes] * len(samples), caller=Caller.of(identity))
        return _("${field} set on ${count} samples.", mapping={"field": field, "count": count})
    target_id = request.POST.get("target", "")
    target_context = context_at(request, "projects", target_id) if target_id else None
    if target_context is None:
        raise PageError(400, _("Choose the project to send the samples to."))
    require(request, target_context, target_permission)
    if action == "copy":
        samples = _samples(request, ids, Permission.SAMPLE_READ)
        copy_samples(db, project, target_context.project, samples)
        return _("${count} samples shared with ${target}.",
                 mapping={"count": count, "target": target_context.project.name})
    if action == "clone":
        samples = _samples(request, ids, Permission.SAMPLE_READ)
        outcome = clone_samples(request, project, target_context.project, samples,
                                Caller.of(identity), request.registry.get("seqcore.file_kinds", {}))
        if outcome.problems and not outcome.clones:
            raise PageError(400, _("No sample was copied: ${problems}"),
                            problems=" ".join(outcome.problems.values()))
        if outcome.problems:
            return _("${count} samples copied to ${target}; not copied: ${problems}",
                     mapping={"count": len(outcome.clones),
                              "target": target_context.project.name,
                              "problems": " ".join(outcome.problems.values())})
        return _("${count} samples copied to ${target}.",
                 mapping={"count": len(outcome.clones), "target": target_context.project.name})
    require(request, context, Permission.PROJECT_WRITE)
    samples = _samples(request, ids, Permission.SAMPLE_OWN)
    transfer_samples(db, project, target_context.project, samples)
    return _("${count} samples moved to ${target}.",
             mapping={"count": count, "target": target_context.project.name})


def includeme(config: Configurator) -> None:
    add_page(config, "web.project.bulk", "/-/projects/{id}/samples/{action}", bulk,
             method="POST")
