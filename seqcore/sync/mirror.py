"""One sync of one synchronized project: read the remote project (IRIDA's REST dialect)
into a :class:`~seqcore.imports.plan.Plan`, then bring the local project in step with it.

The copying is :class:`~seqcore.imports.copying.Copier`'s, with a map of the project's own
(``remote_kind`` ``irida-sync:<local project id>``): samples and sequencing objects found
in the map are not copied again, a file is downloaded to a temporary file, checked against
the remote's size and SHA-256 and only then stored and attached, and samples are committed
a batch at a time with their map entries, so a sync cut short resumes where it stopped and
leaves no half-copied file attached. On top of the import, a sync:

- removes first what the remote no longer has (samples, sequencing objects), and the local
  copy of a sequencing object whose files' checksums differ there (copied again after);
- updates a mapped sample whose fields or metadata differ there.

Its writes are recorded as the ``sync`` actor's, the one actor the read-only guard of
synchronized projects (:mod:`seqcore.governance.readonly`) lets write to them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from seqcore.governance.activity import Actor
from seqcore.governance.readonly import SYNC_ACTOR
from seqcore.imports.copying import Copier, Outcome
from seqcore.imports.idmap import IdMap
from seqcore.imports.plan import Plan, RemoteSample
from seqcore.imports.remote import Remote
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile
from seqcore.models.user import User
from seqcore.security.fieldaccess import Caller


def map_kind(project_id: int) -> str:
    """The id map's ``remote_kind`` for one synchronized project: each has its own, so two
    local projects mirroring one remote project do not share copies."""
    return f"irida-sync:{project_id}"


def read_remote(request: Any, remote: Remote, project_id: int, remote_id: str) -> Plan:
    """The remote project as a plan, without its members and analyses (a synchronized
    project has its own members, and runs its own analyses)."""
    from seqcore.imports.runner import read

    idmap_kind = map_kind(project_id)
    plan = read(request, remote, "irida", {}, [remote_id])
    plan.remote_kind = idmap_kind
    for project in plan.projects:
        project.members = []
        project.submissions = []
    return plan


class Mirror(Copier):
    """Brings one local project in step with the plan of the remote one."""

    def __init__(self, request: Any, remote: Remote, owner: User, project_id: int) -> None:
        super().__init__(request, remote, owner, IdMap(remote.base, map_kind(project_id)))
        self.actor = Actor(SYNC_ACTOR, owner.id, owner.username)
        self.project_id = project_id

    def mirror(self, plan: Plan) -> Outcome:
        (remote_project,) = plan.projects

        def start() -> None:
            self._begin_run(plan)
            if self.idmap.local(self.db, "project", remote_project.remote_id) is None:
                self.idmap.record(self.db, "project", remote_project.remote_id,
                                  self.project_id, self.run_id)
            self._project_fields(remote_project.values)

        if not self._transaction(start, "sync"):
            return self.outcome
        self._prune(remote_project.samples)
        self.mapped_objects = set(self.idmap.known(self.db, "sequencing_object"))
        self._samples(self.project_id, remote_project.samples)
        self._transaction(self._end_run, "sync")
        return self.outcome

    # -- what changed there ------------------------------------------------------------

    def _project_fields(self, values: dict[str, Any]) -> None:
        from seqcore.projects.projects import update_project

        project = self.db.get_one(Project, self.project_id)
        changed = {k: v for k, v in values.items() if getattr(project, k) != v}
        if changed:
            update_project(self.db, project, changed)  # type: ignore[arg-type]
            self.outcome.add("project")

    def _prune(self, samples: list[RemoteSample]) -> None:
        """Remove the local copies of what the remote no longer holds, and of sequencing
        objects whose files changed there (copied again by this sync): each in a
        transaction of its own, so one that cannot go (a local analysis used it) is
        reported and holds up nothing else."""
        found: dict[str, list[Any]] = {}
        self._transaction(lambda: found.update(samples=self._gone_samples(samples)),
                          "removals")
        for local_id in found.get("samples", []):
            self._transaction(lambda i=local_id: self._remove_sample(i),  # type: ignore[misc]
                              f"sample {local_id} (removed there)")
        self._transaction(lambda: found.update(objects=self._changed_objects(samples)),
                          "removals")
        for local_id, what in found.get("objects", []):
            self._transaction(lambda i=local_id, w=what: self._remove_object(i, w),  # type: ignore[misc]
                              f"sequencing object {local_id} ({what.split()[0]} there)")
        there = {a.remote_id for sample in samples for a in sample.assemblies}
        self._transaction(lambda: found.update(assemblies=[
            local for remote_id, local in sorted(self.idmap.known(self.db, "assembly").items())
            if remote_id not in there]), "removals")
        for local_id in found.get("assemblies", []):
            self._transaction(lambda i=local_id: self._remove_assembly(i),  # type: ignore[misc]
                              f"assembly {local_id} (removed there)")

    def _gone_samples(self, samples: list[RemoteSample]) -> list[int]:
        """The local samples of this project whose remote sample is gone."""
        there = {s.remote_id for s in samples}
        mapped = [local for remote_id, local in sorted(self.idmap.known(self.db, "sample")
                                                       .items()) if remote_id not in there]
        return list(self.db.scalars(select(ProjectSample.sample_id).where(
            ProjectSample.project_id == self.project_id,
            ProjectSample.sample_id.in_(mapped)).order_by(ProjectSample.sample_id)))

    def _remove_sample(self, local_id: int) -> None:
        from seqcore.samples.samples import remove_from_project

        join = self.db.scalar(select(ProjectSample).where(
            ProjectSample.project_id == self.project_id, ProjectSample.sample_id == local_id))
        if join is not None:
            remove_from_project(self.db, self.request.registry.pm, join, self.request)
            self.outcome.add("removed sample")

    def _changed_objects(self, samples: list[RemoteSample]) -> list[tuple[int, str]]:
        """The local sequencing objects whose remote object is gone (``removed``) or whose
        files' SHA-256 differ there (``changed``)."""
        wanted: dict[str, dict[str, str | None]] = {}
        for sample in samples:
            for obj in sample.objects:
                wanted[f"{obj.kind}:{obj.remote_id}"] = {
                    f.file_name: (f.sha256 or "").lower() or None for f in obj.files}
        objects = dict(self.idmap.known(self.db, "sequencing_object"))
        present = self._local_objects(list(objects.values()))
        found = []
        for key, local_id in sorted(objects.items()):
            here = present.get(local_id)
            if here is None:
                continue  # gone with its sample, or never committed
            there = wanted.get(key)
            if there is None:
                found.append((local_id, "removed"))
            elif not all(there.get(name) in (None, sha) for name, sha in here.items()):
                found.append((local_id, "changed"))
        return found

    def _remove_object(self, local_id: int, what: str) -> None:
        from seqcore.governance.purge import delete_sequencing_object

        local = self.db.get(SequencingObject, local_id)
        if local is not None:
            delete_sequencing_object(self.db, self.request.storage, self.request.tm, local)
            self.outcome.add(f"{what} sequencing_object")

    def _remove_assembly(self, local_id: int) -> None:
        """An assembly gone from the remote goes here too, through the plugin that keeps
        assemblies (one gone with its sample already is nobody's any more)."""
        if self.request.registry.pm.hook.remove_imported_assembly(
                request=self.request, assembly_id=local_id):
            self.outcome.add("removed assembly")

    def _local_objects(self, ids: list[int]) -> dict[int, dict[str, str | None]]:
        """The sequencing objects of this project among ``ids``: each file's name and
        upload SHA-256."""
        found: dict[int, dict[str, str | None]] = {}
        rows = self.db.execute(
            select(SequencingObject.id, SequenceFile.file_name, SequenceFile.upload_sha256)
            .join(SequencingObjectFile, SequencingObjectFile.object_id == SequencingObject.id)
            .join(SequenceFile, SequenceFile.id == SequencingObjectFile.file_id)
            .join(ProjectSample, ProjectSample.sample_id == SequencingObject.sample_id)
            .where(ProjectSample.project_id == self.project_id,
                   SequencingObject.id.in_(ids)))
        for object_id, name, sha in rows:
            found.setdefault(object_id, {})[name] = (sha or "").lower() or None
        return found

    def _sample(self, project_id: int, remote: RemoteSample, prefetched: Any) -> None:
        local_id = self._existing(Sample, "sample", remote.remote_id)
        if local_id is not None:
            self._refresh(self.db.get_one(Sample, local_id), remote)
        super()._sample(project_id, remote, prefetched)

    def _refresh(self, sample: Sample, remote: RemoteSample) -> None:
        """Bring a copied sample's fields and metadata in step with the remote's."""
        from seqcore.samples.metadata import set_metadata
        from seqcore.samples.samples import update_sample

        changed = {k: v for k, v in remote.values.items() if getattr(sample, k) != v}
        if changed:
            update_sample(self.db, sample, changed)  # type: ignore[arg-type]
            self.outcome.add("updated sample")
        here = {e.field: (e.value, e.type) for e in self.db.scalars(
            select(MetadataEntry).where(MetadataEntry.sample_id == sample.id))}
        if here == dict(remote.metadata):
            return
        set_metadata(self.db, [sample], [(remote.metadata, set())], replace=True,
                     caller=Caller(self.owner.id, self.owner.system_role))
        for entry in self.db.scalars(select(MetadataEntry).where(
                MetadataEntry.sample_id == sample.id)):
            if entry.field not in here or here[entry.field] != (entry.value, entry.type):
                entry.import_id = self.run_id
        self.outcome.add("metadata", sum(1 for f, v in remote.metadata.items()
                                         if here.get(f) != v) + len(set(here) -
                                                                    set(remote.metadata)))
