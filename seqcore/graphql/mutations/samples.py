"""``createSample``."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.errors.domain import Conflict
from seqcore.graphql.mutations.base import (
    UserError,
    either,
    find_project,
    problems_from,
    run,
    validate,
)
from seqcore.graphql.types import Sample
from seqcore.parsing.schemas import IridaNextSampleSchema
from seqcore.samples.samples import create_sample
from seqcore.security.permissions import Permission


class CreateSample(graphene.relay.ClientIDMutation):
    """Create a sample in a project, with IRIDA Next's rule for names (REST's messages)."""

    class Input:
        project_id = graphene.ID(description="The project's global id (or give projectPuid).")
        project_puid = graphene.ID(description="The project's PUID.")
        name = graphene.String(required=True)
        description = graphene.String()

    sample = graphene.Field(Sample)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, name: str,
                               project_id: str | None = None, project_puid: str | None = None,
                               description: str | None = None, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            project = find_project(info, either(project_id, project_puid, "project"),
                                   "project", Permission.SAMPLE_CREATE,
                                   "create samples in").project
            data = validate(info, IridaNextSampleSchema(), {"sampleName": name,
                                                   "description": description},
                            "sample", {"sampleName": "name"})
            try:
                sample = create_sample(info.context.db, project.id,
                                       {"name": data["sampleName"],
                                        "description": data.get("description")})
            except Conflict as err:
                raise problems_from(err, ["sample", "name"]) from None
            return {"sample": sample}

        return run(info, cls, work)
