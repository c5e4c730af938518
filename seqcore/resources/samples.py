"""Samples: canonically at ``/api/samples/{id}``, and listed under each project holding them."""

from __future__ import annotations

from typing import Any

from pyramid.authorization import Allow
from sqlalchemy import select

from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.sample import ProjectSample, Sample
from seqcore.resources.base import Context, int_key
from seqcore.security.permissions import Permission
from seqcore.security.principals import SEQUENCER, user_principal

READ = Permission.SAMPLE_READ
WRITE = Permission.SAMPLE_WRITE
OWN = Permission.SAMPLE_OWN


def sample_acl(rows: list[tuple[int, str, bool]]) -> list:
    """The ACL of a sample from ``(user_id, project role, project owns sample)`` rows of every
    project holding it: members read; owners of a project that owns the sample write and
    own it; sequencer accounts read and write (they upload into any sample) but own none."""
    acl: list = [(Allow, SEQUENCER, (READ, WRITE))]
    for user_id, role, owns in rows:
        owner = role == ProjectRole.OWNER and owns
        acl.append((Allow, user_principal(user_id), (READ, WRITE, OWN) if owner else (READ,)))
    return acl


def load_sample_acl(db: Any, sample_id: int) -> list:
    rows = db.execute(
        select(ProjectMember.user_id, ProjectMember.role, ProjectSample.owner)
        .join(ProjectSample, ProjectSample.project_id == ProjectMember.project_id)
        .where(ProjectSample.sample_id == sample_id)
    ).all()
    return sample_acl([(r.user_id, r.role, r.owner) for r in rows])


class SamplesCollection(Context):
    """``/api/samples``: no listing of its own; samples are listed per project."""

    def child(self, key: str) -> Any:
        sample = self.db.get(Sample, int_key(key))
        if sample is None:
            raise KeyError(key)
        return SampleResource(self.request, str(sample.id), self, sample)


class SampleResource(Context):
    read_permission = READ

    def __init__(self, request: Any, name: str, parent: Context, sample: Sample) -> None:
        super().__init__(request, name, parent)
        self.sample = sample

    @property
    def __acl__(self) -> list:
        if not hasattr(self, "_acl"):
            self._acl = load_sample_acl(self.db, self.sample.id)
        return self._acl

    def child(self, key: str) -> Any:
        if key == "metadata":
            return SampleMetadata(self.request, key, self)
        if key == "sequenceFiles":
            from seqcore.resources.files import SampleSequenceFiles

            return SampleSequenceFiles(self.request, key, self)
        raise KeyError(key)


class SampleMetadata(Context):
    """``/api/samples/{id}/metadata``."""


class ProjectSamples(Context):
    """``/api/projects/{id}/samples``."""

    def child(self, key: str) -> Any:
        if key == "metadata":
            return ProjectSamplesMetadata(self.request, key, self)
        if key == "bySampleName":
            return SampleByName(self.request, key, self)
        row = self.db.execute(
            select(Sample, ProjectSample)
            .join(ProjectSample, ProjectSample.sample_id == Sample.id)
            .where(ProjectSample.project_id == self.__parent__.project.id,
                   Sample.id == int_key(key))
        ).first()
        if row is None:
            raise KeyError(key)
        return ProjectSampleResource(self.request, key, self, row.Sample, row.ProjectSample)

    @property
    def project(self) -> Any:
        return self.__parent__.project


class ProjectSampleResource(SampleResource):
    """A sample as reached through a project: its links are the canonical sample's, plus
    ``sample/project`` and ``project/sample``. Reading it needs the project's read
    permission; removing it from the project needs the project's write permission."""

    read_permission = Permission.PROJECT_READ

    def __init__(self, request: Any, name: str, parent: Context, sample: Sample,
                 join: ProjectSample | None = None) -> None:
        super().__init__(request, name, parent, sample)
        self.join = join
        samples = request.root["api"]["samples"]
        self.canonical = SampleResource(request, str(sample.id), samples, sample)

    @property
    def project_ctx(self) -> Any:
        return self.__parent__.__parent__


class ProjectSamplesMetadata(Context):
    """``/api/projects/{id}/samples/metadata``: every sample's metadata."""


class SampleByName(Context):
    """``/api/projects/{id}/samples/bySampleName?sampleName=``: a redirect to the sample."""
