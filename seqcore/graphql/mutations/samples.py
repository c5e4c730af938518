"""``createSample``."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.graphql.mutations.base import UserError, find_project, problem, run, validate
from seqcore.graphql.types import Sample
from seqcore.models.sample import ProjectSample
from seqcore.models.sample import Sample as SampleModel
from seqcore.rest.schemas import SampleSchema
from seqcore.rest.views.samples import duplicate_name
from seqcore.samples import name_taken
from seqcore.security.permissions import Permission


class CreateSample(graphene.relay.ClientIDMutation):
    """Create a sample in a project, with REST's validation rules and messages."""

    class Input:
        project_id = graphene.ID(required=True)
        name = graphene.String(required=True)
        description = graphene.String()

    sample = graphene.Field(Sample)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str, name: str,
                               description: str | None = None, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            project = find_project(info, project_id, "project", Permission.SAMPLE_CREATE,
                                   "create samples in").project
            data = validate(info, SampleSchema(), {"sampleName": name,
                                                   "description": description},
                            "sample", {"sampleName": "name"})
            if name_taken(info.context.db, project.id, data["sampleName"]):
                raise problem(duplicate_name(data["sampleName"], project.id).payload["message"],
                              "sample", "name")
            sample = SampleModel(name=data["sampleName"], description=data.get("description"))
            sample.projects.append(ProjectSample(project_id=project.id,
                                                 sample_name=sample.name, owner=True))
            info.context.db.add(sample)
            return {"sample": sample}

        return run(info, cls, work)
