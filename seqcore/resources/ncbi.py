"""A project's NCBI submissions: ``/api/projects/{id}/ncbiSubmissions[/{nid}]``.

Both inherit the project's ACL through ``__parent__`` (:data:`seqcore.security.access.PROJECT`):
whoever reads the project reads its submissions, as IRIDA's ``canReadExportSubmission``
asks ``canReadProject``; ``ncbi:submit`` (owners, administrators) creates them.
"""

from __future__ import annotations

from typing import Any, cast

from seqcore.models.ncbi import NcbiSubmission
from seqcore.resources.base import Context, ProjectNode, int_key


class ProjectNcbiSubmissions(Context):
    @property
    def project_ctx(self) -> ProjectNode:
        """The project this collection hangs below."""
        return cast(ProjectNode, self.__parent__)

    def child(self, key: str) -> Any:
        submission = self.db.get(NcbiSubmission, int_key(key))
        if submission is None or submission.project_id != self.project_ctx.project_id:
            raise KeyError(key)
        return NcbiSubmissionResource(self.request, key, self, submission)

    def resource_for(self, submission: NcbiSubmission) -> NcbiSubmissionResource:
        return NcbiSubmissionResource(self.request, str(submission.id), self, submission)


class NcbiSubmissionResource(Context):
    def __init__(self, request: Any, name: str, parent: Context,
                 submission: NcbiSubmission) -> None:
        super().__init__(request, name, parent)
        self.submission = submission
