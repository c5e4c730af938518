"""The core's links, registered through ``register_links`` like any plugin's."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.contrib import LinkSpec
from seqcore.links import api_href, child_href, static, url_for
from seqcore.resources.projects import ProjectMemberEntry, ProjectResource
from seqcore.resources.root import ApiRoot
from seqcore.resources.samples import ProjectSampleResource, ProjectSamples, SampleResource
from seqcore.resources.users import UserResource


def _relationship(request: Request, entry: Any) -> str:
    return url_for(request, entry.project_ctx, "users", entry.user.username)


@static
def _sample_project(request: Request, resource: Any) -> str:
    return url_for(request, resource.project_ctx)


@static
def _project_sample(request: Request, resource: Any) -> str:
    return url_for(request, resource.project_ctx, "samples", resource.sample.id)


def core_links() -> list[LinkSpec]:
    return [
        LinkSpec(ApiRoot, "projects", api_href("projects")),
        LinkSpec(ApiRoot, "users", api_href("users")),
        LinkSpec(ApiRoot, "version", api_href("version")),
        LinkSpec(UserResource, "user/projects", child_href("projects")),
        LinkSpec(ProjectMemberEntry, "relationship", _relationship),
        LinkSpec(ProjectResource, "project/users", child_href("users")),
        LinkSpec(ProjectResource, "project/samples", child_href("samples")),
        LinkSpec(ProjectResource, "project/analyses", child_href("analyses")),
        LinkSpec(ProjectSamples, "project/samples/metadata", child_href("metadata")),
        LinkSpec(SampleResource, "sample/metadata", child_href("metadata")),
        LinkSpec(ProjectSampleResource, "sample/project", _sample_project),
        LinkSpec(ProjectSampleResource, "project/sample", _project_sample),
    ]
