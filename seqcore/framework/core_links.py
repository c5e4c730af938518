"""The core's links, registered through ``register_links`` like any plugin's.

Links that depend on a file kind (a sample's collection of the kind, a submission's inputs
of the kind) are derived from the registered :class:`seqcore.framework.contrib.FileKind`
declarations by :mod:`seqcore.files.filekinds`: the core names no kind here."""

from __future__ import annotations

from typing import Any, cast

from pyramid.request import Request

from seqcore.framework.contrib import LinkSpec
from seqcore.framework.links import api_href, application_url, child_href, static, url_for
from seqcore.resources.analyses import (
    ProjectAnalysesByType,
    SubmissionResource,
    SubmissionsCollection,
    TypeFilter,
    TypeResource,
)
from seqcore.resources.exports import ExportResource, ProjectExports
from seqcore.resources.files import (
    QCResource,
    SampleSequenceFiles,
    SequenceFileResource,
    SequencingObjectResource,
    SequencingObjects,
)
from seqcore.resources.groups import GroupResource
from seqcore.resources.ncbi import NcbiSubmissionResource, ProjectNcbiSubmissions
from seqcore.resources.projects import ProjectAnalyses, ProjectMemberEntry, ProjectResource
from seqcore.resources.root import ApiRoot
from seqcore.resources.runs import RunsCollection
from seqcore.resources.samples import ProjectSampleResource, ProjectSamples, SampleResource
from seqcore.resources.users import UserResource


def _export_project_href(request: Request, resource: Any) -> str:
    return f"{application_url(request)}/api/projects/{resource.export.project_id}"


def _relationship(request: Request, entry: Any) -> str:
    return url_for(request, entry.project_ctx, "users", entry.user.username)


@static
def _parent_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.__parent__)


@static
def _grandparent_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.__parent__.__parent__)


def _sample_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.object_ctx.sample_ctx)


def _sample_files_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.object_ctx.sample_ctx, "sequenceFiles")


def _object_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.object_ctx)


@static
def _sample_project(request: Request, resource: Any) -> str:
    return url_for(request, resource.project_ctx)


@static
def _project_sample(request: Request, resource: Any) -> str:
    return url_for(request, resource.project_ctx, "samples", resource.sample.id)


def _may_see_runs(request: Request, resource: Any) -> bool:
    identity = request.identity
    return identity is not None and (identity.is_admin or identity.role.value ==
                                     "ROLE_SEQUENCER")


def _completed(request: Request, resource: Any) -> bool:
    return cast("bool", resource.completed)


def _filter_href(request: Request, resource: Any) -> str:
    return url_for(request, request.root["api"]["analysisSubmissions"], "analysisType",
                   resource.analysis_type.name)


@static
def _grand_grandparent_href(request: Request, resource: Any) -> str:
    return url_for(request, resource.__parent__.__parent__)


def _has_parent(request: Request, resource: Any) -> bool:
    return resource.group.parent_id is not None


def _group_parent(request: Request, resource: Any) -> str:
    return url_for(request, resource.__parent__, str(resource.group.parent_id))


def core_links() -> list[LinkSpec]:
    return [
        LinkSpec(ApiRoot, "projects", api_href("projects")),
        LinkSpec(ApiRoot, "users", api_href("users")),
        LinkSpec(ApiRoot, "version", api_href("version")),
        LinkSpec(ApiRoot, "analysisSubmissions", api_href("analysisSubmissions")),
        LinkSpec(ApiRoot, "sequencingRuns", api_href("sequencingrun"), when=_may_see_runs),
        LinkSpec(UserResource, "user/projects", child_href("projects")),
        LinkSpec(ProjectMemberEntry, "relationship", _relationship),
        LinkSpec(GroupResource, "group/groups", child_href("groups")),
        LinkSpec(GroupResource, "group/projects", child_href("projects")),
        LinkSpec(GroupResource, "group/members", child_href("members")),
        LinkSpec(GroupResource, "group/shares", child_href("shares")),
        LinkSpec(GroupResource, "group/parent", _group_parent, when=_has_parent),
        LinkSpec(ProjectResource, "project/users", child_href("users")),
        LinkSpec(ProjectResource, "project/samples", child_href("samples")),
        LinkSpec(ProjectResource, "project/analyses", child_href("analyses")),
        LinkSpec(ProjectResource, "project/hash", child_href("hash")),
        LinkSpec(ProjectResource, "project/ncbiSubmissions", child_href("ncbiSubmissions")),
        LinkSpec(ProjectNcbiSubmissions, "project", _parent_href),
        LinkSpec(ProjectResource, "project/exports", child_href("exports")),
        LinkSpec(ProjectExports, "project", _parent_href),
        LinkSpec(ExportResource, "project", _export_project_href),
        LinkSpec(ExportResource, "export/download", child_href("download"),
                 when=lambda request, context: context.ready),
        LinkSpec(ExportResource, "collection", _parent_href),
        LinkSpec(NcbiSubmissionResource, "project", _grandparent_href),
        LinkSpec(ProjectAnalyses, "project", _parent_href),
        LinkSpec(ProjectSamples, "project/samples/metadata", child_href("metadata")),
        LinkSpec(SampleResource, "sample/metadata", child_href("metadata")),
        LinkSpec(SampleResource, "sample/sequenceFiles", child_href("sequenceFiles")),
        LinkSpec(SampleSequenceFiles, "sample", _parent_href),
        LinkSpec(SequencingObjects, "sample", _parent_href),
        LinkSpec(SequencingObjectResource, "sample", _grandparent_href),
        LinkSpec(SequenceFileResource, "sample/sequenceFiles", _sample_files_href),
        LinkSpec(SequenceFileResource, "sample", _sample_href),
        LinkSpec(SequenceFileResource, "sequenceFile/sequencingObject", _object_href),
        LinkSpec(SequenceFileResource, "sequencefile/qc", child_href("qc")),
        LinkSpec(QCResource, "qc/sequencefile", _parent_href),
        LinkSpec(SubmissionsCollection, "analysisTypes", api_href("analysisTypes")),
        LinkSpec(TypeFilter, "analysisSubmissions", _grand_grandparent_href),
        LinkSpec(SubmissionResource, "analysis", child_href("analysis"), when=_completed),
        LinkSpec(TypeResource, "analysisSubmissions", _filter_href),
        LinkSpec(ProjectAnalysesByType, "project", _grand_grandparent_href),
        LinkSpec(RunsCollection, "sequencingRun/seqmodel", child_href("seqmodelrun")),
        LinkSpec(RunsCollection, "sequencingRun/miseq", child_href("miseqrun")),
        LinkSpec(ProjectSampleResource, "sample/project", _sample_project),
        LinkSpec(ProjectSampleResource, "project/sample", _project_sample),
    ]
