"""A sample's page: its metadata (readable fields only) with the provenance of each value and
the history of changes from the activity trail, its files and pairs with each file's QC
verdict (linking to its QC report, :mod:`seqcore.web.qc`), and the analyses that used it.
The sample is found through the same traversal context and ACL as REST's."""

from __future__ import annotations

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


def sample_page(request: Request) -> Response:
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
    return page(request, "sample.mako", sample=sample, entries=entries,
                provenance={entry.id: provenance_of(entry) for entry in entries},
                history=history, projects=projects, objects=objects, analyses=analyses,
                qc_pages=has_route(request, "web.qc.file"),
                qc=summaries(db, (f.id for o in objects for f in o.files)),
                views={obj.id: kind_view(request, sample, obj) for obj in objects})


def includeme(config: Configurator) -> None:
    add_page(config, "web.sample", "/-/samples/{id}", sample_page)
