"""Analysis submissions (``/api/analysisSubmissions``) and analysis types."""

from __future__ import annotations

from typing import Any

from pyramid.authorization import Allow, Authenticated
from sqlalchemy import select

from seqcore.analysis.registry import analysis_registry
from seqcore.contrib import AnalysisType, FileKind
from seqcore.models.analysis import AnalysisState, AnalysisSubmission, SubmissionProject
from seqcore.models.project import ProjectMember
from seqcore.resources.base import Context, int_key
from seqcore.resources.files import file_kinds
from seqcore.security.permissions import Permission
from seqcore.security.principals import SEQUENCER, user_principal

READ = Permission.SUBMISSION_READ


class SubmissionsCollection(Context):
    __acl__ = [(Allow, Authenticated, Permission.ANALYSIS_LAUNCH)]
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        if key == "analysisType":
            return TypeFilters(self.request, key, self)
        submission = self.db.get(AnalysisSubmission, int_key(key))
        if submission is None:
            raise KeyError(key)
        return SubmissionResource(self.request, key, self, submission)

    def resource_for(self, submission: AnalysisSubmission) -> SubmissionResource:
        return SubmissionResource(self.request, str(submission.id), self, submission)


class TypeFilters(Context):
    """``/api/analysisSubmissions/analysisType``."""

    def child(self, key: str) -> Any:
        analysis_type = analysis_registry(self.request.registry).type(key)
        if analysis_type is None:
            raise KeyError(key)
        return TypeFilter(self.request, key, self, analysis_type)


class TypeFilter(Context):
    """``/api/analysisSubmissions/analysisType/{type}``: the caller's submissions of a type;
    POST launches one."""

    def __init__(self, request: Any, name: str, parent: Context,
                 analysis_type: AnalysisType) -> None:
        super().__init__(request, name, parent)
        self.analysis_type = analysis_type


def submission_acl(submitter_id: int | None, member_ids: list[int], shared: bool) -> list:
    acl: list = []
    if submitter_id is not None:
        acl.append((Allow, user_principal(submitter_id), READ))
    for user_id in member_ids:
        acl.append((Allow, user_principal(user_id), READ))
    if shared:  # sequencer accounts read every project, hence what is shared with one
        acl.append((Allow, SEQUENCER, READ))
    return acl


class SubmissionResource(Context):
    read_permission = READ

    def __init__(self, request: Any, name: str, parent: Context,
                 submission: AnalysisSubmission) -> None:
        super().__init__(request, name, parent)
        self.submission = submission

    @property
    def __acl__(self) -> list:
        if not hasattr(self, "_acl"):
            project_ids = list(self.db.scalars(select(SubmissionProject.project_id).where(
                SubmissionProject.submission_id == self.submission.id)))
            members = list(self.db.scalars(select(ProjectMember.user_id).where(
                ProjectMember.project_id.in_(project_ids)))) if project_ids else []
            self._acl = submission_acl(self.submission.submitter_id, members,
                                       bool(project_ids))
        return self._acl

    @property
    def completed(self) -> bool:
        return self.submission.state == AnalysisState.COMPLETED.value

    def child(self, key: str) -> Any:
        if key == "analysis" and self.completed:
            return AnalysisResource(self.request, key, self)
        if key == "sequenceFiles":
            return SubmissionInputs(self.request, key, self)
        raise KeyError(key)


class AnalysisResource(Context):
    """The outputs of a completed submission."""

    @property
    def submission(self) -> AnalysisSubmission:
        return self.__parent__.submission

    def child(self, key: str) -> Any:
        if key == "file":
            return OutputFiles(self.request, key, self)
        raise KeyError(key)


class OutputFiles(Context):
    def child(self, key: str) -> Any:
        output_id = int_key(key)
        for output in self.__parent__.submission.outputs:
            if output.id == output_id:
                return OutputFileResource(self.request, key, self, output)
        raise KeyError(key)


class OutputFileResource(Context):
    def __init__(self, request: Any, name: str, parent: Context, output: Any) -> None:
        super().__init__(request, name, parent)
        self.output = output

    @property
    def file(self) -> Any:
        return self.output.file


class SubmissionInputs(Context):
    """``/api/analysisSubmissions/{id}/sequenceFiles/<kind>`` for each registered kind that
    declares an ``input_rel`` (``pairs``, ``unpaired``)."""

    def child(self, key: str) -> Any:
        kind = file_kinds(self.request).get(key)
        if kind is not None and kind.input_rel:
            return InputObjects(self.request, key, self, kind)
        raise KeyError(key)


class InputObjects(Context):
    """A submission's inputs of one kind."""

    def __init__(self, request: Any, name: str, parent: Context, kind: FileKind) -> None:
        super().__init__(request, name, parent)
        self.kind = kind

    @property
    def submission(self) -> AnalysisSubmission:
        return self.__parent__.__parent__.submission


class TypesCollection(Context):
    """``/api/analysisTypes``: what can be launched, with its parameters and readiness."""

    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        # An alias (IRIDA's ``sistr``) answers like the type it names, as its filter does.
        analysis_type = analysis_registry(self.request.registry).type(key)
        if analysis_type is None:
            raise KeyError(key)
        return TypeResource(self.request, key, self, analysis_type)


class TypeResource(Context):
    def __init__(self, request: Any, name: str, parent: Context,
                 analysis_type: AnalysisType) -> None:
        super().__init__(request, name, parent)
        self.analysis_type = analysis_type


class ProjectAnalysesByType(Context):
    """``/api/projects/{id}/analyses/{type}``."""

    def __init__(self, request: Any, name: str, parent: Context,
                 analysis_type: AnalysisType) -> None:
        super().__init__(request, name, parent)
        self.analysis_type = analysis_type


class AutomatedAnalyses(Context):
    """``/api/projects/{id}/automatedAnalyses``: types launched on every new upload."""
