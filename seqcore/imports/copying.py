"""Writing a :class:`~seqcore.imports.plan.Plan` into this install, through the domain's
own operations: :func:`~seqcore.projects.projects.new_project`,
:func:`~seqcore.samples.samples.create_sample`, :func:`~seqcore.samples.metadata.set_metadata`,
:func:`~seqcore.files.uploads.receive_upload` (each file checked by its kind's content check,
as an upload is), :func:`~seqcore.analysis.service.create_submission`.

Samples are written a batch to a transaction, and a sample's rows, its metadata, its files
and their entries in the id map are always in the same one: a sample is copied whole or not
at all. A file is downloaded into a storage writer
(a temporary file), its size and SHA-256 compared with what the other install says, and only
then placed in storage; a failed or killed import therefore leaves no half-copied file
attached, and the next run copies the sample again from the start.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import DomainError
from seqcore.files.contentchecks import FastaCheck
from seqcore.files.uploads import (
    BadContent,
    ReceivedFile,
    add_object,
    keep,
    receive_upload,
    store_file,
)
from seqcore.governance.activity import Actor, acting, operation
from seqcore.imports.idmap import IdMap
from seqcore.imports.plan import (
    Plan,
    RemoteFile,
    RemoteGroup,
    RemoteProject,
    RemoteSample,
    RemoteSubmission,
)
from seqcore.imports.remote import Remote, RemoteError
from seqcore.models.analysis import AnalysisOutput, AnalysisState
from seqcore.models.imports import ImportRun
from seqcore.models.project import Project, ProjectRole
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.models.user import User
from seqcore.parsing.timestamps import epoch_ms
from seqcore.security.fieldaccess import Caller
from seqcore.storage.service import StorageError


def keep_puid(db: Session, row: Any, value: str | None) -> bool:
    """Give a copy the PUID of its original when no object here holds or held it (entered
    in the register, so this install never issues it again); else it keeps its own."""
    from seqcore.models.puid import IssuedPuid, is_puid

    if not value or not is_puid(value) or db.get(IssuedPuid, value) is not None:
        return False
    db.add(IssuedPuid(value=value))
    row.puid = value
    db.flush()
    return True


@operation("import.samples")
def import_samples(db: Session, write: Callable[[], None]) -> None:
    """Copy samples from another install (``write`` creates them, writes their metadata and
    stores their files through the domain's operations): one activity record for the whole
    batch rather than three for each sample, which an import of thousands of samples would
    spend most of its time writing."""
    write()


#: Samples whose files download while earlier ones are written, and downloads at a time.
PREFETCH = 16
DOWNLOADERS = 8
#: Samples written in one transaction.
BATCH = 25


def discard(files: Mapping[str, list[ReceivedFile]]) -> None:
    """Remove the temporary files of downloads that were not kept."""
    for received in files.values():
        for item in received:
            if item.writer.placed is None:
                item.writer.discard()


class Progress(Protocol):
    """Told what was copied, as it is (a progress bar, or nothing)."""

    def advance(self, what: str, amount: int = 1) -> None: ...


class NoProgress:
    def advance(self, what: str, amount: int = 1) -> None:
        pass


class CopyFailed(Exception):
    """One object could not be copied (a download cut short, a checksum that differs, a
    file this install refuses); the transaction it was part of is rolled back."""


@dataclass
class Outcome:
    """What a run copied (by object type, ``bytes`` downloaded) and what it could not."""

    copied: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, what: str, amount: int = 1) -> None:
        self.copied[what] = self.copied.get(what, 0) + amount


class Copier:
    """Copies a plan as ``owner`` (the owner of every project it creates), through a
    prepared request of this install's application (database, storage, transaction)."""

    def __init__(self, request: Any, remote: Remote, owner: User, idmap: IdMap,
                 progress: Progress | None = None) -> None:
        self.request = request
        self.remote = remote
        self.owner = owner
        self.idmap = idmap
        self.progress = progress or NoProgress()
        self.actor = Actor("user", owner.id, owner.username)
        self.caller = Caller(owner.id, owner.system_role)
        self.outcome = Outcome()
        self.run_id: int | None = None
        settings = request.registry.settings
        self.check_settings = {**settings, "seqcore.upload.verify_gzip": True}
        from seqcore.resources.files import registered_kinds

        self.kinds = {kind.name: kind for kind in registered_kinds(request.registry).values()}
        self.lock = threading.Lock()
        #: The objects in the map when the run began (what the download threads skip).
        self.mapped_objects: set[str] = set()
        #: Local samples this run created (no upload into them can race the import's).
        self.created: set[int] = set()

    @property
    def db(self) -> Session:
        return self.request.db

    def _transaction(self, work: Callable[[], None], subject: str) -> bool:
        """Run ``work`` in a transaction of its own: committed, or rolled back whole and
        reported."""
        tm = self.request.tm
        tm.begin()
        self.created.clear()
        copied = dict(self.outcome.copied)
        try:
            with acting(self.db, self.actor):
                work()
            tm.commit()
            return True
        except (CopyFailed, RemoteError, DomainError, StorageError) as err:
            tm.abort()
            self.idmap.forget_cache()
            with self.lock:  # nothing was copied; the bytes downloaded meanwhile were
                self.outcome.copied = {**copied, "bytes": self.outcome.copied.get("bytes", 0)}
            self.outcome.failures.append(f"{subject}: {err}")
            return False
        except BaseException:
            tm.abort()
            raise

    def run(self, plan: Plan) -> Outcome:
        def start() -> None:
            self._begin_run(plan)
            self.mapped_objects = set(self.idmap.known(self.db, "sequencing_object"))

        self._transaction(start, "import")
        for group in plan.groups:
            self._transaction(lambda g=group: self._copy_group(g),  # type: ignore[misc]
                              f"group {group.path}")
        for project in plan.projects:
            self._project(plan, project)
        self._transaction(self._end_run, "import")
        return self.outcome

    def _begin_run(self, plan: Plan) -> None:
        """Record this run in ``import_run``: its id is the provenance of what it copies."""
        record = ImportRun(remote=plan.remote, remote_kind=plan.remote_kind,
                           user_id=self.owner.id)
        self.db.add(record)
        self.db.flush()
        self.run_id = record.id

    def _end_run(self) -> None:
        """Record how the run ended, what it copied and what it could not."""
        record = self.db.get_one(ImportRun, self.run_id)
        record.state = "failed" if self.outcome.failures else "finished"
        record.finished = utcnow()
        record.counts = dict(self.outcome.copied)
        record.error = "\n".join(self.outcome.failures)[:10000] or None

    # -- projects ------------------------------------------------------------------------

    def _project(self, plan: Plan, project: RemoteProject) -> None:
        if not project.values:
            return  # refused: a problem of the plan
        subject = f"project {project.remote_id}"

        def make() -> None:
            from seqcore.projects.projects import new_project

            local_id = self._existing(Project, "project", project.remote_id)
            if local_id is None:
                group = self._group(project.group)
                created = new_project(self.db, self.owner.id, self.owner.username,
                                      project.values, group=group)  # type: ignore[arg-type]
                keep_puid(self.db, created, project.puid)
                self.idmap.record(self.db, "project", project.remote_id, created.id,
                                  self.run_id)
                self.outcome.add("project")
                local_id = created.id
            self._members(local_id, project)

        if not self._transaction(make, subject):
            return
        self.progress.advance("projects")
        local_id = self.idmap.local(self.db, "project", project.remote_id)
        assert local_id is not None
        self._samples(local_id, project.samples)
        for submission in project.submissions:
            self._transaction(lambda s=submission: self._submission(local_id, s),  # type: ignore[misc]
                              f"analysis submission {submission.remote_id}")

    def _samples(self, project_id: int, samples: list[RemoteSample]) -> None:
        """The samples in order, :data:`BATCH` to a transaction, while the files of the next
        ones download (:data:`PREFETCH` samples ahead, :data:`DOWNLOADERS` at a time). A
        batch that fails is rolled back whole and its samples copied again one to a
        transaction, so one bad sample costs only itself."""
        pool = ThreadPoolExecutor(DOWNLOADERS)
        ahead: dict[int, Future[dict[str, list[ReceivedFile]]]] = {}
        try:
            for start in range(0, len(samples), BATCH):
                batch = range(start, min(start + BATCH, len(samples)))
                for later in range(start, min(batch.stop + PREFETCH, len(samples))):
                    if later not in ahead:
                        ahead[later] = pool.submit(self._prefetch, samples[later])
                files = [ahead.pop(number) for number in batch]
                failures = len(self.outcome.failures)

                def work(numbers: range = batch,
                         found: list[Future[dict[str, list[ReceivedFile]]]] = files) -> None:
                    import_samples(self.db, lambda: self._write_samples(
                        project_id, [samples[n] for n in numbers],
                        [future.result() for future in found]))

                try:
                    done = self._transaction(work, f"samples {start + 1} to {batch.stop}")
                finally:
                    for future in files:
                        if future.done() and future.exception() is None:
                            discard(future.result())  # what the transaction did not keep
                if not done:
                    del self.outcome.failures[failures:]
                    for number in batch:
                        sample = samples[number]
                        self._transaction(
                            lambda s=sample: import_samples(  # type: ignore[misc]
                                self.db, lambda: self._write_samples(project_id, [s], [{}])),
                            f"sample {sample.remote_id} ({sample.values.get('name')})")
                self.progress.advance("samples", len(batch))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in ahead.values():
                if future.done() and not future.cancelled() and future.exception() is None:
                    discard(future.result())

    def _prefetch(self, remote: RemoteSample) -> dict[str, list[ReceivedFile]]:
        """(In a thread of the pool) the files of the sample's objects not in the map,
        downloaded and checked, not placed; none left behind when one fails."""
        got: dict[str, list[ReceivedFile]] = {}
        try:
            for obj in remote.objects:
                key = f"{obj.kind}:{obj.remote_id}"
                if key in self.mapped_objects:
                    continue
                kind = self.kinds[obj.kind]
                got[key] = [self._download(f, kind.content_check) for f in obj.files]
        except BaseException:
            discard(got)
            raise
        return got

    def _copy_group(self, remote: RemoteGroup) -> None:
        from seqcore.models.group import Group
        from seqcore.projects.groups import create_group

        if self._existing(Group, "group", remote.remote_id) is not None:
            return
        parent = self._group(remote.parent)
        if remote.parent is not None and parent is None:
            raise CopyFailed("the group above it was not copied")
        path = remote.path.rsplit("/", 1)[-1]
        if self.db.scalar(select(Group.id).where(Group.full_path == (
                f"{parent.full_path}/{path}" if parent is not None else path))):
            path = f"{path}-imported"
        group = create_group(self.db, self.owner.id, remote.name, path, remote.description,
                             parent)
        keep_puid(self.db, group, remote.puid)
        self.idmap.record(self.db, "group", remote.remote_id, group.id, self.run_id)
        self.outcome.add("group")

    def _group(self, remote_group: str | None) -> Any:
        if remote_group is None:
            return None
        from seqcore.models.group import Group

        local_id = self.idmap.local(self.db, "group", remote_group)
        return None if local_id is None else self.db.get(Group, local_id)

    def _existing(self, model: Any, object_type: str, remote_id: str) -> int | None:
        """The local row an object was copied to, if it is still there."""
        local_id = self.idmap.local(self.db, object_type, remote_id)
        if local_id is not None and self.db.get(model, local_id) is None:
            return None
        return local_id

    def _members(self, project_id: int, project: RemoteProject) -> None:
        from seqcore.projects.projects import _membership, add_member

        users = {u.username: u for u in self.db.query(User).where(
            User.username.in_([m[0] for m in project.members]))}
        for username, role, metadata_role in project.members:
            user = users.get(username)
            if user is None or _membership(self.db, project_id, user.id) is not None:
                continue
            role = role if role in {r.value for r in ProjectRole} else ProjectRole.USER.value
            level = metadata_role or ("LEVEL_4" if role == ProjectRole.OWNER.value
                                      else "LEVEL_1")
            add_member(self.db, project_id, user.id, username, role, level, self.owner.id)
            self.outcome.add("member")

    # -- samples -------------------------------------------------------------------------

    def _write_samples(self, project_id: int, remotes: list[RemoteSample],
                       prefetched: list[dict[str, list[ReceivedFile]]]) -> None:
        """A batch of samples, in the caller's transaction: first every new sample's row
        and metadata, all at once (a few statements for the batch, not a few per sample),
        then each sample's files (:meth:`_sample`)."""
        self._new_samples(project_id, remotes)
        for remote, found in zip(remotes, prefetched, strict=True):
            self._sample(project_id, remote, found)

    def _new_samples(self, project_id: int, remotes: list[RemoteSample]) -> None:
        from seqcore.samples.metadata import set_metadata
        from seqcore.samples.samples import create_sample, duplicate_name

        created: list[tuple[RemoteSample, Sample]] = []
        names: set[str] = set()
        # Not flushed sample by sample: the names are checked against the project's (by
        # create_sample) and against each other's (here), and written together.
        with self.db.no_autoflush:
            for remote in remotes:
                if self._existing(Sample, "sample", remote.remote_id) is not None:
                    continue
                if remote.values["name"] in names:
                    raise duplicate_name(remote.values["name"], project_id)
                names.add(remote.values["name"])
                sample = create_sample(self.db, project_id, remote.values)  # type: ignore[arg-type]
                keep_puid(self.db, sample, remote.puid)
                created.append((remote, sample))
        if not created:
            return
        self.db.flush()
        with_values = [(remote, sample) for remote, sample in created if remote.metadata]
        if with_values:
            set_metadata(self.db, [sample for _, sample in with_values],
                         [(remote.metadata, set()) for remote, _ in with_values],
                         caller=self.caller)
            ids = {sample.id for _, sample in with_values}
            for entry in self.db.new:  # the values just added: the import is their source
                if isinstance(entry, MetadataEntry) and entry.sample_id in ids:
                    entry.import_id = self.run_id
        for remote, sample in created:
            self.idmap.record(self.db, "sample", remote.remote_id, sample.id, self.run_id)
            self.outcome.add("sample")
            self.outcome.add("metadata", len(remote.metadata))
            self.created.add(sample.id)

    def _sample(self, project_id: int, remote: RemoteSample,
                prefetched: dict[str, list[ReceivedFile]]) -> None:
        """The sample's files, assemblies and attachments not copied yet (the sample itself
        is, by :meth:`_write_samples`)."""
        local_id = self._existing(Sample, "sample", remote.remote_id)
        if local_id is None:  # a subclass's own call
            self._new_samples(project_id, [remote])
            local_id = self.idmap.local(self.db, "sample", remote.remote_id)
            assert local_id is not None
        for obj in remote.objects:
            key = f"{obj.kind}:{obj.remote_id}"
            if self._existing(SequencingObject, "sequencing_object", key) is not None:
                continue
            kind = self.kinds[obj.kind]
            received = prefetched.pop(key, None) or [self._download(f, kind.content_check)
                                                     for f in obj.files]
            try:
                if local_id in self.created:
                    # A sample made by this transaction: no upload can race this one, and
                    # it holds no files yet, so there is nothing to lock or compare with.
                    made, new = add_object(self.request, kind, local_id, [
                        SequenceFile(path=keep(item, self.request.tm), file_name=item.file_name,
                                     size=item.writer.size, upload_sha256=item.writer.sha256,
                                     properties=dict(f.properties))
                        for item, f in zip(received, obj.files, strict=True)]), True
                else:
                    made, _, new = receive_upload(self.request, kind, local_id, received,
                                                  [f.properties for f in obj.files], None)
            except BaseException:
                for item in received:
                    item.writer.discard()
                raise
            if not new:
                for item in received:
                    item.writer.discard()
            self.idmap.record(self.db, "sequencing_object", key, made.id, self.run_id)
            self.outcome.add("sequencing_object")
            self.outcome.add("file", len(obj.files))
        self._attachments(local_id, remote)
        for assembly in remote.assemblies:
            if self.idmap.local(self.db, "assembly", assembly.remote_id) is not None:
                continue
            received_file = self._download(assembly.files[0], lambda _: FastaCheck(True))
            stored = store_file(self.request.tm, received_file)
            row = self.request.registry.pm.hook.import_assembly(
                request=self.request, sample_id=local_id, file=stored)
            if row is None:
                raise CopyFailed("no plugin here keeps assemblies")
            self.idmap.record(self.db, "assembly", assembly.remote_id, row.id, self.run_id)
            self.outcome.add("assembly")

    def _attachments(self, sample_id: int, remote: RemoteSample) -> None:
        """Files attached to the sample there, attached here as a client of IRIDA Next's
        GraphQL attaches them (announced, received, attached: FASTQ pairs become pairs)."""
        from seqcore.files.attachments import (
            Owner,
            announce,
            attach,
            complete_upload,
            signed_id,
        )
        from seqcore.models.attachment import Attachment

        settings = self.request.registry.settings
        blobs = []
        for item in remote.attachments:
            if self._existing(Attachment, "attachment", item.remote_id) is not None:
                continue
            md5 = hashlib.md5(usedforsecurity=False)
            received = self._download(item, None, md5.update)
            blob = announce(self.db, self.owner.id, filename=item.file_name,
                            content_type="application/octet-stream", checksum=md5.hexdigest(),
                            byte_size=received.writer.size,
                            limit=int(settings["seqcore.upload.max_bytes"]),
                            max_pending=int(settings["seqcore.upload.max_pending_direct_uploads"]))
            complete_upload(self.db, self.request.tm, blob, received)
            blobs.append((item, blob))
        if not blobs:
            return
        done = attach(self.request, Owner("sample", sample_id), [signed_id(b) for _, b in blobs],
                      self.owner.id, self.request.registry.get("seqcore.file_kinds", {}))
        if done.errors:
            raise CopyFailed("; ".join(e["message"] for e in done.errors))
        for (item, _), attachment in zip(blobs, done.attachments, strict=True):
            keep_puid(self.db, attachment, item.properties.get("puid"))
            self.idmap.record(self.db, "attachment", item.remote_id, attachment.id,
                              self.run_id)
            self.outcome.add("file")

    def _download(self, remote_file: RemoteFile,
                  content_check: Callable[[Mapping[str, Any]], Any] | None,
                  also: Callable[[bytes], Any] | None = None) -> ReceivedFile:
        """The file's bytes in a storage writer (not placed), checked against the other
        install's size and SHA-256 and by the kind's content check."""
        writer = self.request.storage.writer(remote_file.file_name)
        check = content_check(self.check_settings) if content_check else None

        def sink(block: bytes) -> None:
            writer.write(block)
            if check is not None:
                check.feed(block)
            if also is not None:
                also(block)
            with self.lock:
                self.progress.advance("bytes", len(block))

        try:
            if not remote_file.href:
                raise CopyFailed(f"{remote_file.file_name}: the other install gives no link")
            size = self.remote.stream(remote_file.href, remote_file.accept, sink)
            if check is not None:
                check.finish()
            writer.close()
            if remote_file.size is not None and size != remote_file.size:
                raise CopyFailed(f"{remote_file.file_name}: {size} bytes received, the other "
                                 f"install says {remote_file.size}")
            if remote_file.sha256 and writer.sha256 != remote_file.sha256.lower():
                raise CopyFailed(f"{remote_file.file_name}: SHA-256 {writer.sha256} differs "
                                 f"from the other install's {remote_file.sha256}")
        except BadContent as err:
            writer.discard()
            raise CopyFailed(f"{remote_file.file_name}: {err}") from None
        except BaseException:
            writer.discard()
            raise
        with self.lock:
            self.outcome.add("bytes", size)
        return ReceivedFile(remote_file.file_name, writer)

    # -- analyses ------------------------------------------------------------------------

    def _submission(self, project_id: int, remote: RemoteSubmission) -> None:
        from seqcore.analysis.registry import analysis_registry
        from seqcore.analysis.service import create_submission
        from seqcore.models.analysis import AnalysisSubmission

        if self._existing(AnalysisSubmission, "analysis_submission",
                          remote.remote_id) is not None:
            return
        inputs = []
        for key in remote.inputs:
            local_id = self.idmap.local(self.db, "sequencing_object", key)
            obj = self.db.get(SequencingObject, local_id) if local_id is not None else None
            if obj is None:
                raise CopyFailed(f"its input {key} was not copied")
            inputs.append(obj)
        analysis_type = analysis_registry(self.request.registry).types[remote.analysis_type]
        priority = remote.priority if remote.priority in ("LOW", "MEDIUM", "HIGH") else "MEDIUM"
        submission = create_submission(
            self.db, analysis_type, name=remote.name, inputs=inputs,
            parameters=remote.parameters, project_ids=[project_id], update_samples=False,
            priority=priority, submitter_id=self.owner.id, description=remote.description)
        now = utcnow()
        submission.workflow_id = remote.workflow_id or submission.workflow_id
        submission.state = AnalysisState.COMPLETED.value
        submission.history = [*submission.history, [AnalysisState.COMPLETED.value, epoch_ms(now)]]
        submission.modified = now
        for output in remote.outputs:
            received = self._download(output.files[0], None)
            stored = store_file(self.request.tm, received)
            self.db.add(AnalysisOutput(submission_id=submission.id, key=output.kind,
                                       file=stored))
        self.db.flush()
        self.idmap.record(self.db, "analysis_submission", remote.remote_id, submission.id,
                          self.run_id)
        self.outcome.add("analysis_submission")
