"""Cloning samples into another project: IRIDA Next's ``copySamples`` (its ``CloneSamples``).

A clone is a new sample, owned by the target project, with a PUID of its own: the original's
name, description and other columns, its metadata values with their provenance, and its files.
Sharing (:func:`seqcore.samples.samples.copy_samples`, REST's copy) adds the *same* sample to
another project instead; a clone is changed and deleted apart from its original.

**Files are referenced, not copied.** Every sequencing object and attachment of the original
gets its counterpart on the clone, each with a ``sequence_file`` row of its own that names the
original's stored bytes (``path`` and ``original_path``). Stored bytes go only when no
``sequence_file`` row uses their path any more (:func:`seqcore.governance.purge.purge_files`,
the trash's purge), so deleting the original keeps the clone's files and the other way round,
and deleting both removes the bytes. The original sample's row is held while it is cloned
(as uploads into it and deletions of it hold it), so a clone never names bytes that a
concurrent deletion of the original is about to remove.

**Metadata follows the field rules.** Only the values the caller reads on the original are
copied (:func:`seqcore.security.fieldaccess.readable_entry`); the others are left out without a
word, since naming them would reveal them. A restriction goes with the values: a clone whose
copied values someone reaching the target would read while the original keeps them from them
is refused (as a transfer that would widen is), so cloning never widens what anyone reads.

**Each sample on its own.** Every sample is checked and cloned in a savepoint of its own: a
sample not in the source project, one whose name the target already uses, or one that cannot
be cloned is a problem beside the clones that succeeded, as IRIDA Next reports them.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.files.uploads import add_object
from seqcore.governance.activity import note, operation
from seqcore.models.attachment import Attachment
from seqcore.models.fielddecl import MetadataField
from seqcore.models.group import READ_LEVEL
from seqcore.models.project import Project, ProjectMember
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import QCRecord, SequenceFile, SequencingObject
from seqcore.models.user import SystemRole, User
from seqcore.samples.samples import name_taken
from seqcore.security.fieldaccess import (
    OPEN,
    Caller,
    readable_entry,
    readable_fields,
    sample_hidden_fields,
)
from seqcore.security.inheritance import PROJECT_ROUTES

# The columns of a sample a clone takes over (not its id, PUID or dates).
SAMPLE_COLUMNS = ("name", "description", "organism", "isolate", "strain", "collected_by",
                  "collection_date", "geographic_location_name", "isolation_source",
                  "latitude", "longitude")
# The columns of a metadata value a clone takes over: the value and its provenance.
ENTRY_COLUMNS = ("field", "value", "type", "submission_id", "ncbi_submission_id",
                 "writer_id", "created", "modified")
# Processing states a clone's sequencing object takes over with the QC reports: the work is
# done on bytes the clone shares; any other state lets the worker process the clone's files.
SETTLED = ("FINISHED", "ERROR")


@dataclass
class Cloned:
    """What :func:`clone_samples` did: ``(original, clone)`` for each sample cloned, in the
    order given, and each refused sample's problem, by the original's id."""

    clones: list[tuple[Sample, Sample]] = field(default_factory=list)
    problems: dict[int, str] = field(default_factory=dict)


class _Refused(Exception):
    """One sample cannot be cloned; its savepoint is rolled back."""


@operation("sample.clone")
def clone_samples(request: Any, source: Project, target: Project, samples: Sequence[Sample],
                  caller: Caller, kinds: Mapping[str, Any]) -> Cloned:
    """Clone ``samples`` of ``source`` into ``target`` (see the module's docstring); who may
    do so is the transport's question, asked before. ``kinds`` are the registered file
    kinds, which rebuild each sequencing object's own rows (a pair's orientation) on the
    clone."""
    db: Session = request.db
    outcome = Cloned()
    in_source = set(db.scalars(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == source.id,
        ProjectSample.sample_id.in_([sample.id for sample in samples]))))
    for sample in samples:
        if sample.id not in in_source:
            outcome.problems[sample.id] = (f"Sample {sample.name} is not in project "
                                           f"{source.name}.")
            continue
        savepoint = db.begin_nested()
        try:
            if not _hold(db, sample.id):
                raise _Refused(f"Sample {sample.name} was deleted meanwhile.")
            if name_taken(db, target.id, sample.name):
                raise _Refused(f"A sample named {sample.name} already exists in project "
                               f"{target.name}.")
            clone = _clone(request, sample, target, caller, kinds)
            db.flush()
        except _Refused as refused:
            savepoint.rollback()
            outcome.problems[sample.id] = str(refused)
            continue
        except IntegrityError:  # a concurrent request took the name meanwhile
            savepoint.rollback()
            outcome.problems[sample.id] = (f"A sample named {sample.name} already exists "
                                           f"in project {target.name}.")
            continue
        savepoint.commit()
        outcome.clones.append((sample, clone))
    if outcome.clones:
        note(db, projects=[source.id, target.id],
             samples=[clone.id for _, clone in outcome.clones], on="sample",
             action="cloned", source=source.id, target=target.id,
             clones=[{"original": original.id, "clone": clone.id}
                     for original, clone in outcome.clones])
    return outcome


def _hold(db: Session, sample_id: int) -> bool:
    """Hold the original's row until the transaction ends, as uploads and deletions of its
    files do (:func:`seqcore.files.uploads.lock_sample`); ``False`` once it is gone."""
    held = db.execute(update(Sample).where(Sample.id == sample_id).values(name=Sample.name)
                      .execution_options(synchronize_session=False))
    return bool(getattr(held, "rowcount", 0))


def _clone(request: Any, sample: Sample, target: Project, caller: Caller,
           kinds: Mapping[str, Any]) -> Sample:
    db: Session = request.db
    entries = list(db.scalars(select(MetadataEntry).where(
        MetadataEntry.sample_id == sample.id, readable_entry(caller)).order_by(
        MetadataEntry.id)))
    widened, gainers = _widening(db, sample, target, {entry.field for entry in entries})
    if widened:
        raise _Refused(
            f"Cloning sample {sample.name} would let {gainers} account(s) read the field(s) "
            f"{', '.join(sorted(widened))}, which a project holding it restricts from them. "
            "Restrict the fields in the target project as the source does first.")
    now = utcnow()
    clone = Sample(**{column: getattr(sample, column) for column in SAMPLE_COLUMNS},
                   created=now)
    clone.projects.append(ProjectSample(project_id=target.id, sample_name=sample.name,
                                        owner=True))
    for entry in entries:
        clone.metadata_entries.append(MetadataEntry(
            **{column: getattr(entry, column) for column in ENTRY_COLUMNS}))
    db.add(clone)
    db.flush()
    files, objects = _clone_objects(request, sample, clone, kinds)
    _clone_attachments(db, sample, clone, files, objects)
    return clone


def _file(original: SequenceFile) -> SequenceFile:
    """A ``sequence_file`` row of its own naming the original's stored bytes."""
    return SequenceFile(path=original.path, file_name=original.file_name, size=original.size,
                        upload_sha256=original.upload_sha256,
                        original_path=original.original_path, revision=original.revision,
                        properties=dict(original.properties or {}), created=original.created)


def _clone_objects(request: Any, sample: Sample, clone: Sample, kinds: Mapping[str, Any]
                   ) -> tuple[dict[int, SequenceFile], dict[int, int]]:
    """The original's sequencing objects on the clone, each rebuilt by its file kind as an
    upload of those files would be; returns the files and objects by the original's ids."""
    db: Session = request.db
    files: dict[int, SequenceFile] = {}
    objects: dict[int, int] = {}
    originals = db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == sample.id).order_by(SequencingObject.id))
    for obj in originals:
        kind = kinds.get(obj.kind)
        copies = [_file(link.file) for link in obj.links]
        try:
            if kind is None:
                raise LookupError(obj.kind)
            made = add_object(request, kind, clone.id, copies)
        except Exception:  # the kind needs the upload itself to rebuild its rows
            raise _Refused(f"Sample {sample.name} holds {obj.kind} files that cannot be "
                           "cloned.") from None
        for link, copy in zip(obj.links, copies, strict=True):
            files[link.file_id] = copy
        objects[obj.id] = made.id
        if obj.processing_state in SETTLED:
            made.processing_state = obj.processing_state
            made.file_processor = obj.file_processor
            made.processing_error = obj.processing_error
            reports = db.scalars(select(QCRecord).where(
                QCRecord.file_id.in_([link.file_id for link in obj.links])))
            for report in reports:
                db.add(QCRecord(file_id=files[report.file_id].id, report=report.report,
                                engine=report.engine, created=report.created))
    return files, objects


def _clone_attachments(db: Session, sample: Sample, clone: Sample,
                       files: dict[int, SequenceFile], objects: dict[int, int]) -> None:
    """The original's attachments on the clone (new PUIDs and download keys), each with the
    clone's counterpart of its file and sequencing object; a pair's partner is the clone's."""
    originals = list(db.scalars(select(Attachment).where(
        Attachment.sample_id == sample.id).order_by(Attachment.id)))
    made: dict[int, Attachment] = {}
    for attachment in originals:
        stored = files.get(attachment.file_id) or _file(attachment.file)
        copy = Attachment(sample_id=clone.id, file=stored,
                          object_id=objects.get(attachment.object_id or 0),
                          download_key=secrets.token_urlsafe(24),
                          properties=dict(attachment.properties or {}),
                          created=attachment.created)
        db.add(copy)
        made[attachment.id] = copy
    db.flush()
    for copy in made.values():
        partner = copy.properties.get("associated_attachment_id")
        if partner in made:
            copy.properties = {**copy.properties, "associated_attachment_id": made[partner].id}


def _widening(db: Session, sample: Sample, target: Project, fields: set[str]
              ) -> tuple[set[str], int]:
    """The copied fields that a project holding the original restricts and that someone
    reaching the target would read on the clone without reading them on the original, and
    how many accounts would."""
    restricted = set(db.scalars(select(MetadataField.name).join(
        ProjectSample, ProjectSample.project_id == MetadataField.project_id).where(
        ProjectSample.sample_id == sample.id, MetadataField.name.in_(sorted(fields)),
        MetadataField.restriction > OPEN)))
    if not restricted:
        return set(), 0
    users = set(db.scalars(select(ProjectMember.user_id).where(
        ProjectMember.project_id == target.id, ProjectMember.active)))
    for route in PROJECT_ROUTES:
        pairs = route(READ_LEVEL).subquery()
        users.update(db.scalars(select(pairs.c.user_id).where(
            pairs.c.object_id == target.id)))
    users.update(db.scalars(select(User.id).where(
        User.system_role == SystemRole.SEQUENCER.value)))
    widened: set[str] = set()
    gainers = 0
    for user_id, role in sorted(db.execute(select(User.id, User.system_role).where(
            User.id.in_(users))).all()):
        user = Caller(user_id, role)
        if user.sees_all:
            continue
        reads = set(readable_fields(db, user, target.id).visible(sorted(restricted)))
        gained = reads & sample_hidden_fields(db, user, sample.id, reads)
        if gained:
            widened |= gained
            gainers += 1
    return widened, gainers
