"""A sample's page: its metadata (readable fields only) with the provenance of each value and
the history of changes from the activity trail, its files and pairs with each file's QC
verdict (linking to its QC report, :mod:`seqcore.web.qc`), and the analyses that used it.
The sample is found through the same traversal context and ACL as REST's."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.governance.activity import ActivityQuery, activities, provenance_of
from seqcore.models.analysis import AnalysisSubmission, SubmissionInput
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample
from seqcore.models.sequencing import SequencingObject
from seqcore.security.access import PROJECT, SUBMISSION
from seqcore.security.fieldaccess import Caller, readable_entry
from seqcore.web.guard import add_page, context_at, signed_in
from seqcore.web.navigation import has_route
from seqcore.web.pluginviews import kind_view
from seqcore.web.qc import summaries
from seqcore.web.render import page
from seqcore.web.uploads import may_upload_to_sample, upload_area, upload_to_sample

#: Processing states after which a file's QC will not change by itself.
SETTLED = frozenset({"FINISHED", "ERROR"})


def sample_page(request: Request) -> Response:
    return sample_view(request)


def sample_view(request: Request, status: int = 200, outcomes: list[Any] | None = None
                ) -> Response:
    """The page; ``outcomes`` are the refusals of an upload sent without JavaScript (shown
    beside the upload area, :mod:`seqcore.web.uploads`)."""
    identity = signed_in(request)
    context = context_at(request, "samples", request.matchdict["id"])
    sample = context.sample
    db = request.db
    caller = Caller.of(identity)
    entries = db.scalars(select(MetadataEntry).where(
        MetadataEntry.sample_id == sample.id, readable_entry(caller))
        .order_by(MetadataEntry.field)).all()
    history, _cursor = activities(db, caller, ActivityQuery(limit=50), sample_id=sample.id)
    projects = db.scalars(select(Project).join(
        ProjectSample, ProjectSample.project_id == Project.id).where(
        ProjectSample.sample_id == sample.id, PROJECT.readable(identity.user_id, identity.role))
        .order_by(Project.name)).all()
    objects = db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == sample.id).order_by(SequencingObject.id)).all()
    analyses = db.scalars(select(AnalysisSubmission).where(
        AnalysisSubmission.id.in_(select(SubmissionInput.submission_id).where(
            SubmissionInput.object_id.in_([o.id for o in objects]))),
        SUBMISSION.readable(identity.user_id, identity.role))
        .order_by(AnalysisSubmission.id.desc())).all() if objects else []
    qc = summaries(db, (f.id for o in objects for f in o.files))
    # The files' part of the page refreshes itself until every file has its verdicts.
    pending = any(o.processing_state not in SETTLED for o in objects)
    upload = (upload_area(request, request.route_path("web.sample.files", id=sample.id))
              if may_upload_to_sample(request, context) else None)
    return page(request, "sample.mako", status=status, sample=sample, entries=entries,
                provenance={entry.id: provenance_of(entry) for entry in entries},
                history=history, projects=projects, objects=objects, analyses=analyses,
                qc_pages=has_route(request, "web.qc.file"),
                qc=qc, pending=pending, upload=upload, outcomes=outcomes or [],
                views={obj.id: kind_view(request, sample, obj) for obj in objects})


def upload(request: Request) -> Response:
    """Files sent from the page's upload area (:mod:`seqcore.web.uploads`)."""
    return upload_to_sample(request, lambda refused: sample_view(request, status=400,
                                                                 outcomes=refused))


def includeme(config: Configurator) -> None:
    add_page(config, "web.sample", "/-/samples/{id}", sample_page)
    add_page(config, "web.sample.files", "/-/samples/{id:\\d+}/files", upload, method="POST")
