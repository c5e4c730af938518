"""Analysis submissions (``/api/analysisSubmissions``) and analysis types."""

from __future__ import annotations

from typing import Any

from seqcore.analysis.registry import analysis_registry
from seqcore.framework.contrib import AnalysisType, FileKind
from seqcore.models.analysis import AnalysisState, AnalysisSubmission
from seqcore.resources.base import Context, int_key
from seqcore.resources.files import file_kinds
from seqcore.security.access import SUBMISSION, SUBMISSIONS, Ace
from seqcore.security.permissions import Permission


class SubmissionsCollection(Context):
    __acl__ = SUBMISSIONS.acl()
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

    __parent__: SubmissionsCollection

    def child(self, key: str) -> Any:
        analysis_type = analysis_registry(self.request.registry).type(key)
        if analysis_type is None:
            raise KeyError(key)
        return TypeFilter(self.request, key, self, analysis_type)


class TypeFilter(Context):
    """``/api/analysisSubmissions/analysisType/{type}``: the caller's submissions of a type;
    POST launches one."""

    __parent__: TypeFilters

    def __init__(self, request: Any, name: str, parent: Context,
                 analysis_type: AnalysisType) -> None:
        super().__init__(request, name, parent)
        self.analysis_type = analysis_type


class SubmissionResource(Context):
    read_permission = SUBMISSION.read

    def __init__(self, request: Any, name: str, parent: Context,
                 submission: AnalysisSubmission) -> None:
        super().__init__(request, name, parent)
        self.submission = submission

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.SUBMISSION`: the submitter and the members of the
        projects it is shared with read it (sequencer accounts too, once it is shared)."""
        if not hasattr(self, "_acl"):
            self._acl = SUBMISSION.acl(self.db, self.submission)
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

    __parent__: SubmissionResource

    @property
    def submission(self) -> AnalysisSubmission:
        return self.__parent__.submission

    def child(self, key: str) -> Any:
        if key == "file":
            return OutputFiles(self.request, key, self)
        raise KeyError(key)


class OutputFiles(Context):
    """``.../analysis/file/<id>`` as IRIDA numbers outputs, and ``.../analysis/file/<key>``
    by the key the analysis type declares (``contigs``): a client that read the type's
    outputs needs no listing to find one."""

    __parent__: AnalysisResource

    def child(self, key: str) -> Any:
        outputs = self.__parent__.submission.outputs
        if key.isdigit():
            output_id = int_key(key)
            found = [o for o in outputs if o.id == output_id]
        else:
            found = [o for o in outputs if o.key == key]
        if found:
            return OutputFileResource(self.request, key, self, found[0])
        raise KeyError(key)


class OutputFileResource(Context):
    __parent__: OutputFiles

    def __init__(self, request: Any, name: str, parent: Context, output: Any) -> None:
        super().__init__(request, name, parent)
        self.output = output

    @property
    def file(self) -> Any:
        return self.output.file


class SubmissionInputs(Context):
    """``/api/analysisSubmissions/{id}/sequenceFiles/<kind>`` for each registered kind that
    declares an ``input_rel`` (``pairs``, ``unpaired``)."""

    __parent__: SubmissionResource

    def child(self, key: str) -> Any:
        kind = file_kinds(self.request).get(key)
        if kind is not None and kind.input_rel:
            return InputObjects(self.request, key, self, kind)
        raise KeyError(key)


class InputObjects(Context):
    """A submission's inputs of one kind."""

    __parent__: SubmissionInputs

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


def _add_type_links(config: Any) -> None:
    """Each analysis type's name and aliases get a rel on the submissions collection
    (``analysisSubmissions/<name>``, linking to the type's filter), derived once the types
    are registered. Each link is a conflict-checked action like any ``add_link``."""
    from seqcore.framework.contrib import LinkSpec
    from seqcore.framework.links import add_link, api_href

    for analysis_type in analysis_registry(config.registry).types.values():
        for name in (analysis_type.name, *analysis_type.aliases):
            add_link(config, LinkSpec(SubmissionsCollection, f"analysisSubmissions/{name}",
                                      api_href("analysisSubmissions", "analysisType", name)))


def includeme(config: Any) -> None:
    # After the types (order 0) are registered; the links are actions of order 1 added then.
    config.action(("seqcore.analysis_type_links",), lambda: _add_type_links(config), order=1)
