"""The core's GraphQL types: ``Node``, ``User``, ``Sample`` and ``Project``.

Types that ``node(id:)`` can return implement :class:`Node`, list the model classes they
render in ``Meta.possible_types``, and define ``get_node(info, pk)`` returning the object (or
an awaitable of it), or ``None`` when it does not exist or the caller may not read it.
"""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.files.attachments import Owner
from seqcore.graphql.activity import (
    activity_field,
    resolve_metadata_provenance,
    resolve_project_activities,
    resolve_sample_activities,
)
from seqcore.graphql.attachments import Attachment, attachment_args, owner_attachments
from seqcore.graphql.connections import connection_args, connection_for, paginate
from seqcore.graphql.exports import DataExport, project_data_exports
from seqcore.graphql.filters import (
    SampleFilter,
    SampleOrder,
    sample_filter_conditions,
    sample_ordering,
)
from seqcore.graphql.metadatafields import (
    PROJECT_FIELDS,
    resolve_metadata_fields,
    resolve_metadata_templates,
)
from seqcore.graphql.namespaceviews import project_namespace
from seqcore.graphql.ncbi import NcbiSubmission, project_ncbi_submissions
from seqcore.graphql.nodes import Node, _gid
from seqcore.graphql.scalars import JSON
from seqcore.graphql.sync import remote_sync_field, resolve_remote_sync
from seqcore.models.project import Project as ProjectModel
from seqcore.models.sample import ProjectSample
from seqcore.models.sample import Sample as SampleModel
from seqcore.models.user import User as UserModel
from seqcore.security.fieldaccess import Caller
from seqcore.security.permissions import Permission


class User(graphene.ObjectType):
    """An account."""

    class Meta:
        interfaces = (Node,)
        possible_types = (UserModel,)

    email = graphene.String(required=True)
    user_type = graphene.String(required=True, description="IRIDA Next's kind of account: "
                                                            "`human`, `project_bot`, "
                                                            "`group_bot` or "
                                                            "`project_automation_bot`.")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_user_type(user: UserModel, info: Any) -> str:
        return user.account_type

    @staticmethod
    def resolve_created_at(user: UserModel, info: Any) -> Any:
        return user.created

    @staticmethod
    def resolve_updated_at(user: UserModel, info: Any) -> Any:
        return user.modified or user.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> UserModel | None:
        request = info.context.request
        try:
            context = request.root["api"]["users"][str(pk)]
        except KeyError:
            return None
        return context.user if request.has_permission(Permission.USER_READ, context) else None


class Project(graphene.ObjectType):
    """A project: ``fullPath`` is ``<namespace>/<path>``."""

    class Meta:
        interfaces = (Node,)
        possible_types = (ProjectModel,)

    name = graphene.String(required=True)
    description = graphene.String()
    path = graphene.String(required=True)
    full_path = graphene.ID(required=True)
    full_name = graphene.String(required=True, description="The namespace's full name and "
                                                            "the project's: `Lab / Outbreaks "
                                                            "/ Listeria`.")
    puid = graphene.ID(required=True, description="Persistent unique id: INXT_PRJ_...")
    parent = graphene.Field("seqcore.graphql.groups.Namespace", required=True,
                            description="The namespace the project lives in (a group the "
                                        "caller may not read shows only its path and "
                                        "PUID).")
    metadata_summary = graphene.Field(
        JSON, required=True, keys=graphene.List(graphene.NonNull(graphene.String)),
        description="How many of the project's samples hold each metadata field; `keys` "
                    "keeps only those fields.")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    archived = graphene.Boolean(required=True, description="Whether the project is archived: "
                                                           "read-only, listed only on request "
                                                           "(seqcore extension).")
    archived_at = graphene.DateTime(description="When it was archived; null if it is not "
                                                "(seqcore extension).")
    samples = graphene.Field(lambda: connection_for(Sample), **connection_args(),
                             filter=SampleFilter(), order_by=SampleOrder())
    attachments = graphene.Field(connection_for(Attachment), **attachment_args(),
                                 description="Attachments on the project.")
    activities = activity_field()
    resolve_activities = staticmethod(resolve_project_activities)
    metadata_fields = PROJECT_FIELDS["metadata_fields"]
    metadata_templates = PROJECT_FIELDS["metadata_templates"]
    resolve_metadata_fields = staticmethod(resolve_metadata_fields)
    resolve_metadata_templates = staticmethod(resolve_metadata_templates)
    ncbi_submissions = graphene.Field(lambda: connection_for(NcbiSubmission),
                                      **connection_args(),
                                      description="The project's NCBI submissions, oldest "
                                                  "first.")
    data_exports = graphene.Field(lambda: connection_for(DataExport), **connection_args(),
                                  description="The project's data exports the caller may "
                                              "read (its own; administrators: all), "
                                              "newest first.")

    remote_sync = remote_sync_field()
    resolve_remote_sync = staticmethod(resolve_remote_sync)

    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_archived(project: ProjectModel, info: Any) -> bool:
        return project.archived_at is not None

    @staticmethod
    def resolve_data_exports(project: ProjectModel, info: Any, **page: Any) -> Any:
        return project_data_exports(project, info, **page)

    def resolve_attachments(project: ProjectModel, info: Any, **arguments: Any) -> Any:
        return owner_attachments(info, Owner("project", project.id), **arguments)

    @staticmethod
    def resolve_ncbi_submissions(project: ProjectModel, info: Any, **page: Any) -> Any:
        return project_ncbi_submissions(project, info, **page)

    @staticmethod
    def resolve_full_path(project: ProjectModel, info: Any) -> str:
        return project.full_path

    @staticmethod
    async def resolve_full_name(project: ProjectModel, info: Any) -> str:
        namespace = await project_namespace(project, info)
        return f"{namespace.full_name} / {project.name}"

    @staticmethod
    def resolve_parent(project: ProjectModel, info: Any) -> Any:
        return project_namespace(project, info)

    @staticmethod
    async def resolve_metadata_summary(project: ProjectModel, info: Any,
                                       keys: list[str] | None = None) -> dict[str, int]:
        summary = await info.context.loaders.metadata_summary.load(project.id)
        if keys is None:
            return summary
        return {key: summary[key] for key in keys if key in summary}

    @staticmethod
    def resolve_created_at(project: ProjectModel, info: Any) -> Any:
        return project.created

    @staticmethod
    def resolve_updated_at(project: ProjectModel, info: Any) -> Any:
        return project.modified or project.created

    @staticmethod
    def resolve_samples(project: ProjectModel, info: Any, filter: Any = None,
                        order_by: Any = None, **page: Any) -> Any:
        # The project is readable (it was resolved for this caller), and so is every sample
        # it holds: the sample ACL grants read to members of any project holding it.
        query = (select(SampleModel)
                 .join(ProjectSample, ProjectSample.sample_id == SampleModel.id)
                 .where(ProjectSample.project_id == project.id,
                        *sample_filter_conditions(filter, Caller.of(info.context.identity))))
        ordering, value = sample_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @classmethod
    def get_node(cls, info: Any, pk: int) -> Any:
        return info.context.loaders.project.load(pk)


class Sample(graphene.ObjectType):
    """A sample (one isolate) with its metadata."""

    class Meta:
        interfaces = (Node,)
        possible_types = (SampleModel,)

    name = graphene.String(required=True)
    puid = graphene.ID(required=True, description="Persistent Unique Identifier of the "
                                                  "sample, `INXT_SAM_...`.")
    description = graphene.String()
    attachments = graphene.Field(connection_for(Attachment), **attachment_args(),
                                 description="Attachments on the sample.")
    attachments_updated_at = graphene.DateTime(
        description="Datetime when associated attachments were last updated: the latest "
                    "creation or change among the sample's attachments; null without any.")
    metadata = graphene.Field(JSON, required=True,
                              keys=graphene.List(graphene.NonNull(graphene.String)),
                              description="Metadata as {field: value}; `keys` keeps only "
                                          "those fields.")
    metadata_provenance = graphene.Field(JSON, required=True,
                                         description="Where each readable value came from.")
    activities = activity_field()
    resolve_activities = staticmethod(resolve_sample_activities)
    resolve_metadata_provenance = staticmethod(resolve_metadata_provenance)
    project = graphene.Field(Project, required=True,
                             description="The project holding the sample that the caller "
                                         "may read, the owning one first.")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)

    resolve_id = staticmethod(_gid)

    @staticmethod
    async def resolve_metadata(sample: SampleModel, info: Any,
                               keys: list[str] | None = None) -> dict[str, str]:
        metadata = await info.context.loaders.metadata.load(sample.id)
        if keys is None:
            return metadata
        return {key: metadata[key] for key in keys if key in metadata}

    @staticmethod
    def resolve_attachments(sample: SampleModel, info: Any, **arguments: Any) -> Any:
        return owner_attachments(info, Owner("sample", sample.id), **arguments)

    @staticmethod
    def resolve_attachments_updated_at(sample: SampleModel, info: Any) -> Any:
        return info.context.loaders.attachments_updated.load(sample.id)

    @staticmethod
    def resolve_project(sample: SampleModel, info: Any) -> Any:
        return info.context.loaders.sample_project.load(sample.id)

    @staticmethod
    def resolve_created_at(sample: SampleModel, info: Any) -> Any:
        return sample.created

    @staticmethod
    def resolve_updated_at(sample: SampleModel, info: Any) -> Any:
        return sample.modified or sample.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> Any:
        return info.context.loaders.sample.load(pk)


CORE_TYPES = [User, Project, Sample, Attachment]
