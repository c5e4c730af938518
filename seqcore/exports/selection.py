"""Making a data export: every check of the selection, then the row, at once.

REST (``POST /api/projects/{id}/exports``) and GraphQL (``createDataExport``) read their wire
format into the same body (:data:`FIELDS`) and call :func:`create_export`, which checks
everything before it stores anything: the samples (in the project), the file kinds (known
ones), the analyses (completed, readable by the caller, and the project's: shared with it or
run on its samples), the output keys (those analyses have them), the line list's columns.
All problems come back in one :class:`~seqcore.errors.domain.Invalid`, keyed by field, so a caller
fixes them all at once. A sample or analysis the caller may not read is reported exactly as
one that does not exist.

The export records its requester (``DataExport.requester_id``): the worker builds the line
list with the requester's field restrictions
(:func:`seqcore.exports.contents.export_metadata_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from seqcore.analysis.launching import Actor
from seqcore.db import utcnow
from seqcore.errors.domain import Invalid
from seqcore.exports.contents import template_fields
from seqcore.governance.activity import note, operation
from seqcore.models.analysis import (
    AnalysisOutput,
    AnalysisState,
    AnalysisSubmission,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.export import DataExport, ExportState
from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample
from seqcore.models.sequencing import SequencingObject
from seqcore.parsing.identifiers import parse_id
from seqcore.security.permissions import Permission

FIELDS = ("name", "samples", "fileKinds", "analyses", "analysisOutputs", "metadataFields",
          "metadataTemplate")
MAX_TEXT = 255
MAX_SAMPLES = 100_000
MAX_ANALYSES = 1000
MAX_FIELDS = 1000


class _Checker:
    def __init__(self) -> None:
        self.problems: dict[str, list[str]] = {}

    def add(self, key: str, message: str) -> None:
        self.problems.setdefault(key, []).append(message)


def _id_list(check: _Checker, key: str, value: Any, what: str, limit: int) -> list[int]:
    """Ids given as numbers or numeric strings; each problem reported under ``key``."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > limit:
        check.add(key, f"'{key}' must be a list of at most {limit} {what} ids.")
        return []
    ids: list[int] = []
    for item in value:
        number = parse_id(str(item)) if isinstance(item, int | str) and \
            not isinstance(item, bool) else None
        if number is None:
            check.add(key, f"{item!r} is not a {what} id.")
        elif number in ids:
            check.add(key, f"{what.capitalize()} {number} is listed twice.")
        else:
            ids.append(number)
    return ids


def _name_list(check: _Checker, key: str, value: Any, what: str) -> list[str] | None:
    """A list of distinct non-empty names; ``None`` when absent."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_FIELDS:
        check.add(key, f"'{key}' must be a list of at most {MAX_FIELDS} {what} names.")
        return None
    names: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip() or len(item) > MAX_TEXT:
            check.add(key, f"{item!r} is not a {what} name (text of 1 to {MAX_TEXT} "
                           "characters).")
        elif item.strip() in names:
            check.add(key, f"{what.capitalize()} {item.strip()!r} is listed twice.")
        else:
            names.append(item.strip())
    return names


def _project_analyses(db: Session, project_id: int, ids: Sequence[int]
                      ) -> dict[int, AnalysisSubmission]:
    """The submissions among ``ids`` that belong to the project: shared with it, or run on
    a sequencing object of one of its samples."""
    if not ids:
        return {}
    in_project = select(ProjectSample.sample_id).where(ProjectSample.project_id == project_id)
    run_on_project = select(SubmissionInput.submission_id).join(
        SequencingObject, SequencingObject.id == SubmissionInput.object_id).where(
        SequencingObject.sample_id.in_(in_project))
    shared = select(SubmissionProject.submission_id).where(
        SubmissionProject.project_id == project_id)
    rows = db.scalars(select(AnalysisSubmission).where(
        AnalysisSubmission.id.in_(list(ids)),
        or_(AnalysisSubmission.id.in_(shared), AnalysisSubmission.id.in_(run_on_project))))
    return {row.id: row for row in rows}


@operation("export.create")
def create_export(db: Session, caller: Actor, project: Project, body: Mapping[str, Any],
                  kinds: Iterable[str]) -> DataExport:
    """Check ``body`` (the wire fields, :data:`FIELDS`) and create the export, ``QUEUED``,
    for the caller; :class:`Invalid` with every problem otherwise.

    The caller may export the project (the transport asked ``export:create``). ``kinds``
    are the file kinds an export can hold (:func:`seqcore.exports.contents.export_kinds`).
    """
    if not isinstance(body, Mapping):
        raise Invalid(message="The body must be a JSON object.")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        acceptable: dict[str, Any] = {"acceptable-properties": list(FIELDS)}
        raise Invalid(message=f"Unknown field(s): {', '.join(map(str, unknown))}.",
                      **acceptable)
    check = _Checker()
    name = body.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()
                             or len(name) > MAX_TEXT):
        check.add("name", f"The name must be text of 1 to {MAX_TEXT} characters.")
        name = None

    sample_ids = _id_list(check, "samples", body.get("samples"), "sample", MAX_SAMPLES)
    if sample_ids:
        held = set(db.scalars(select(ProjectSample.sample_id).where(
            ProjectSample.project_id == project.id, ProjectSample.sample_id.in_(sample_ids))))
        for sample_id in sample_ids:
            if sample_id not in held:
                check.add("samples", f"No sample {sample_id} in project {project.id}.")

    known = sorted(set(kinds))
    file_kinds = _name_list(check, "fileKinds", body.get("fileKinds"), "file kind")
    for kind in file_kinds or []:
        if kind not in known:
            check.add("fileKinds", f"{kind!r} is not a file kind; the kinds are "
                                   f"{', '.join(known) or 'none'}.")

    analysis_ids = _id_list(check, "analyses", body.get("analyses"), "analysis submission",
                            MAX_ANALYSES)
    analyses = _project_analyses(db, project.id, analysis_ids)
    keys: set[str] = set()
    for analysis_id in analysis_ids:
        analysis = analyses.get(analysis_id)
        if analysis is None or not caller.may(Permission.SUBMISSION_READ,
                                              "analysisSubmissions", str(analysis_id)):
            check.add("analyses", f"No analysis submission {analysis_id} of project "
                                  f"{project.id}.")
        elif analysis.state != AnalysisState.COMPLETED.value:
            check.add("analyses", f"Analysis submission {analysis_id} is {analysis.state}; "
                                  "only completed analyses are exported.")
        else:
            keys.update(db.scalars(select(AnalysisOutput.key).where(
                AnalysisOutput.submission_id == analysis_id)))
    outputs = _name_list(check, "analysisOutputs", body.get("analysisOutputs"), "output")
    if outputs is not None and not analysis_ids:
        check.add("analysisOutputs", "Output keys choose among the outputs of 'analyses'; "
                                     "name the analyses too.")
    elif outputs and "analyses" not in check.problems:
        for key in outputs:
            if key not in keys:
                check.add("analysisOutputs", f"No analysis named has an output {key!r}; "
                                             f"they have {', '.join(sorted(keys)) or 'none'}.")

    columns = _name_list(check, "metadataFields", body.get("metadataFields"),
                         "metadata field")
    template = body.get("metadataTemplate")
    if template is not None:
        named = template if isinstance(template, int | str) and \
            not isinstance(template, bool) and str(template).strip() else None
        fields = template_fields(db, caller, project, named) if named is not None else None
        if fields is None:
            check.add("metadataTemplate", f"No metadata template {template!r} in project "
                                          f"{project.id}.")
        elif columns is not None:
            check.add("metadataTemplate", "Give 'metadataTemplate' or 'metadataFields', not "
                                          "both.")
        else:
            columns = fields
    if not sample_ids and not analysis_ids and not check.problems:
        check.add("samples", "An export needs at least one sample or one analysis "
                             "('samples', 'analyses').")
    if check.problems:
        raise Invalid(check.problems)

    now = utcnow()
    export = DataExport(
        project_id=project.id, requester_id=caller.user_id,
        name=name.strip() if isinstance(name, str) else None,
        state=ExportState.QUEUED.value, created=now,
        selection={"samples": sample_ids, "fileKinds": file_kinds if file_kinds is not None
                   else known, "analyses": analysis_ids, "analysisOutputs": outputs,
                   "metadataFields": columns,
                   "metadataTemplate": template if template is not None else None})
    db.add(export)
    db.flush()
    # Which samples and analyses leave the service is what the trail must say; the columns
    # are not named (a restricted field's name is for those who may read it).
    note(db, projects=[project.id], on="export", id=export.id, action="created",
         values={"name": export.name, "samples": sample_ids, "fileKinds": file_kinds
                 if file_kinds is not None else known, "analyses": analysis_ids,
                 "analysisOutputs": outputs})
    return export
