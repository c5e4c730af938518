"""Making an NCBI submission of a project's samples: every check, then the rows, at once.

REST (``POST /api/projects/{id}/ncbiSubmissions``) and GraphQL (``createNcbiSubmission``)
read their wire format into the same body (:data:`FIELDS`, :data:`SAMPLE_FIELDS`) and call
:func:`create_submission`, which checks everything before it stores anything: the BioProject,
organization, namespace and release date; the BioSample package; each sample (in the
project, its reads, its library fields against the vocabulary, every attribute its package
makes mandatory). All problems come back in one :class:`~seqcore.errors.domain.Invalid`, keyed
``samples.<index>`` (and ``samples.<index>.<field>``) for a sample's, so a caller fixes
them all at once; nothing is stored and nothing is sent.

Sample metadata is read for a submission through one function only,
:func:`submission_attributes` (the place for field-level restrictions), and every write of a
submission goes through the operations here and in :mod:`seqcore.ncbi.progress`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from seqcore.analysis.launching import Actor
from seqcore.db import utcnow
from seqcore.errors.domain import Forbidden, Invalid
from seqcore.governance.activity import operation
from seqcore.models.ncbi import (
    ExportUploadState,
    NcbiSubmission,
    NcbiSubmissionRun,
    NcbiSubmissionSample,
)
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import ProcessingState, SequencingObject
from seqcore.models.user import User
from seqcore.ncbi.vocabulary import Package, Vocabulary, one_of
from seqcore.parsing.identifiers import parse_id
from seqcore.parsing.timestamps import epoch_ms
from seqcore.security.fieldaccess import Caller, sample_hidden_fields
from seqcore.security.permissions import Permission

#: The library fields: body key -> SRA attribute name.
LIBRARY = {
    "libraryStrategy": "library_strategy",
    "librarySource": "library_source",
    "librarySelection": "library_selection",
    "instrumentModel": "instrument_model",
    "libraryConstructionProtocol": "library_construction_protocol",
}
FIELDS = ("bioProject", "organization", "namespace", "releaseDate", "bioSamplePackage",
          "attributes", *LIBRARY, "samples")
SAMPLE_FIELDS = ("sampleId", "sequencingObjects", "bioSample", "libraryName", *LIBRARY)

BIOPROJECT = re.compile(r"PRJ(NA|EB|DB)[0-9]+", re.ASCII)
BIOSAMPLE = re.compile(r"SAM(N|D|EA|E)[0-9]+", re.ASCII)
NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", re.ASCII)
ATTRIBUTE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,127}", re.ASCII)
MAX_TEXT = 255
MAX_SAMPLES = 1000

#: What a sample's own columns give a BioSample attribute that no metadata field is mapped to.
COLUMN_ATTRIBUTES = ("sample_name", "organism", "strain", "isolate", "collected_by",
                     "collection_date", "geo_loc_name", "isolation_source", "lat_lon")


def _text(value: Any, limit: int = MAX_TEXT) -> str | None:
    """A non-empty string of at most ``limit`` characters, trimmed; else ``None``."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        return None
    return value.strip()


def _lat_lon(latitude: str | None, longitude: str | None) -> str | None:
    """NCBI's ``lat_lon`` (``38.98 N 77.11 W``) from a sample's decimal degrees."""
    if not latitude or not longitude:
        return None
    try:
        lat, lon = float(latitude), float(longitude)
    except ValueError:
        return None
    return (f"{abs(lat):g} {'N' if lat >= 0 else 'S'} "
            f"{abs(lon):g} {'E' if lon >= 0 else 'W'}")


def column_attributes(sample: Sample) -> dict[str, str]:
    """The BioSample attributes a sample's own fields give (IRIDA's sample fields are
    NCBI's, by another name)."""
    values = {
        "sample_name": sample.name,
        "organism": sample.organism,
        "strain": sample.strain,
        "isolate": sample.isolate,
        "collected_by": sample.collected_by,
        "collection_date": sample.collection_date.isoformat() if sample.collection_date
        else None,
        "geo_loc_name": sample.geographic_location_name,
        "isolation_source": sample.isolation_source,
        "lat_lon": _lat_lon(sample.latitude, sample.longitude),
    }
    return {key: value for key, value in values.items() if value}


def submission_attributes(db: Session, caller: Actor, samples: Sequence[Sample],
                          mapping: Mapping[str, str]) -> dict[int, dict[str, str]]:
    """The BioSample attributes of each sample, by sample id: each attribute named in
    ``mapping`` (attribute -> metadata field) from that metadata field, the others from the
    sample's own fields (:func:`column_attributes`). An attribute whose field the sample
    lacks is absent.

    This is the one place a submission reads sample metadata, so the one place that checks
    field restrictions: a mapped field the caller may not read on a sample
    (:mod:`seqcore.security.fieldaccess`) is :class:`~seqcore.errors.domain.Forbidden`, nothing
    submitted.
    """
    ids = [sample.id for sample in samples]
    fields = sorted(set(mapping.values()))
    who = Caller.of(caller.identity)
    for sample_id in ids:
        hidden = sample_hidden_fields(db, who, sample_id, fields)
        if hidden:
            raise Forbidden("Your metadata role does not allow reading the field(s) "
                            + ", ".join(sorted(hidden)) + ", so they cannot be submitted.")
    found: dict[int, dict[str, str]] = {sample_id: {} for sample_id in ids}
    if ids and fields:
        rows = db.execute(select(MetadataEntry.sample_id, MetadataEntry.field,
                                 MetadataEntry.value)
                          .where(MetadataEntry.sample_id.in_(ids),
                                 MetadataEntry.field.in_(fields)))
        for sample_id, field, value in rows:
            found[sample_id][field] = value
    attributes: dict[int, dict[str, str]] = {}
    for sample in samples:
        values = column_attributes(sample)
        for attribute, field in mapping.items():
            values.pop(attribute, None)
            text = found[sample.id].get(field)
            if text is not None and text.strip():
                values[attribute] = text.strip()
        attributes[sample.id] = values
    return attributes


#: What every new BioSample needs whatever its package: its ``Organism`` is this attribute.
ALWAYS_REQUIRED = ("organism",)


def missing_attributes(package: Package, values: Mapping[str, str]) -> list[str]:
    """The mandatory attributes ``values`` lacks (the package's, and ``organism``), each
    group of alternatives as ``strain or isolate``."""
    required = [*package.required, *(name for name in ALWAYS_REQUIRED
                                     if name not in package.required)]
    missing = [name for name in required if not values.get(name)]
    for group in package.one_of:
        if not any(values.get(name) for name in group):
            missing.append(" or ".join(group))
    return missing


def submittable_kinds(kinds: Iterable[Any]) -> dict[str, str]:
    """File kind name -> SRA layout, for the kinds whose objects NCBI's SRA takes."""
    return {kind.name: kind.sra_layout for kind in kinds if kind.sra_layout}


class _Checker:
    """Collects every problem of one body."""

    def __init__(self) -> None:
        self.problems: dict[str, list[str]] = {}

    def add(self, key: str, message: str) -> None:
        self.problems.setdefault(key, []).append(message)


def _choice(check: _Checker, key: str, value: Any, allowed: Sequence[str], label: str
            ) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in allowed:
        check.add(key, f"{label} must be one of {one_of(allowed)}.")
        return None
    return value


def _library(check: _Checker, prefix: str, body: Mapping[str, Any], vocabulary: Vocabulary
             ) -> dict[str, str | None]:
    """The library fields given in ``body``, checked (absent ones ``None``)."""
    allowed = {"libraryStrategy": (vocabulary.library_strategies, "The library strategy"),
               "librarySource": (vocabulary.library_sources, "The library source"),
               "librarySelection": (vocabulary.library_selections, "The library selection"),
               "instrumentModel": (vocabulary.models, "The instrument model")}
    values: dict[str, str | None] = {}
    for key, (choices, label) in allowed.items():
        values[key] = _choice(check, prefix + key, body.get(key), choices, label)
    protocol = body.get("libraryConstructionProtocol")
    values["libraryConstructionProtocol"] = None
    if protocol is not None:
        if not isinstance(protocol, str) or len(protocol) > 4000:
            check.add(prefix + "libraryConstructionProtocol",
                      "The library construction protocol must be text of at most 4000 "
                      "characters.")
        else:
            values["libraryConstructionProtocol"] = protocol.strip() or None
    return values


def _ids(value: Any) -> list[int] | None:
    if not isinstance(value, list):
        return None
    ids = []
    for item in value:
        number = parse_id(str(item)) if isinstance(item, int | str) and \
            not isinstance(item, bool) else None
        if number is None:
            return None
        ids.append(number)
    return ids


def _release_date(check: _Checker, value: Any) -> date | None:
    if value is None:
        return None
    try:
        when = date.fromisoformat(value) if isinstance(value, str) and \
            len(value) == 10 else None
    except ValueError:
        when = None
    if when is None:
        check.add("releaseDate", "The release date must be a date, yyyy-MM-dd.")
        return None
    if when < utcnow().date():
        check.add("releaseDate", "The release date must not be in the past.")
        return None
    return when


def _attribute_map(check: _Checker, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        check.add("attributes", "'attributes' must be an object of BioSample attribute: "
                                "metadata field name.")
        return {}
    mapping = {}
    for attribute, field in value.items():
        if not isinstance(attribute, str) or not ATTRIBUTE.fullmatch(attribute):
            check.add("attributes", f"{attribute!r} is not a BioSample attribute name "
                                    "(letters, digits and _).")
        elif not isinstance(field, str) or not field.strip() or len(field) > MAX_TEXT:
            check.add("attributes", f"The metadata field for {attribute!r} must be a field "
                                    f"name of at most {MAX_TEXT} characters.")
        else:
            mapping[attribute] = field.strip()
    return mapping


def _label(sample: Sample) -> str:
    return f"Sample {sample.name!r} ({sample.id})"


@operation("ncbi.submit")
def create_submission(db: Session, caller: Actor, project: Project, body: Mapping[str, Any],
                      vocabulary: Vocabulary, kinds: Iterable[Any], default_namespace: str
                      ) -> NcbiSubmission:
    """Check ``body`` (the wire fields, :data:`FIELDS`) and create the submission, state
    ``NEW``, with its samples and runs; :class:`Invalid` with every problem otherwise.

    The caller may submit the project (the transport asked ``ncbi:submit``); samples must
    be in the project, and objects in their sample, or they do not exist for this request.
    """
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        acceptable: dict[str, Any] = {"acceptable-properties": list(FIELDS)}
        raise Invalid(message=f"Unknown field(s): {', '.join(map(str, unknown))}.",
                      **acceptable)
    check = _Checker()
    bio_project = _text(body.get("bioProject"), 64)
    if bio_project is None or not BIOPROJECT.fullmatch(bio_project):
        check.add("bioProject", "The BioProject must be an NCBI BioProject accession "
                                "(PRJNA..., PRJEB..., PRJDB...).")
    organization = _text(body.get("organization"))
    if organization is None:
        check.add("organization", f"The organization is required: text of at most "
                                  f"{MAX_TEXT} characters.")
    namespace_given = body.get("namespace")
    namespace = (_text(namespace_given, 64) if namespace_given is not None
                 else (default_namespace or None))
    if namespace is None or not NAMESPACE.fullmatch(namespace):
        check.add("namespace", "The SPUID namespace is required (letters, digits, _, . and -, "
                               "at most 64), unless seqcore.ncbi.namespace gives one.")
    release_date = _release_date(check, body.get("releaseDate"))
    mapping = _attribute_map(check, body.get("attributes"))
    defaults = _library(check, "", body, vocabulary)
    package_name = body.get("bioSamplePackage")
    package: Package | None = None
    if package_name is not None:
        if not isinstance(package_name, str) or package_name not in vocabulary.packages:
            check.add("bioSamplePackage", "The BioSample package must be one of "
                                          f"{one_of(list(vocabulary.packages))}.")
        else:
            package = vocabulary.packages[package_name]

    entries = body.get("samples")
    if not isinstance(entries, list) or not entries or len(entries) > MAX_SAMPLES:
        check.add("samples", f"'samples' must be a list of 1 to {MAX_SAMPLES} objects.")
        entries = []
    layouts = submittable_kinds(kinds)
    planned: list[tuple[Sample, list[SequencingObject], dict[str, Any]]] = []
    listed_at: dict[int, int] = {}  # sample id -> its index in the body
    seen: set[int] = set()
    for index, entry in enumerate(entries):
        key = f"samples.{index}"
        if not isinstance(entry, Mapping):
            check.add(key, "Each sample must be an object with a 'sampleId'.")
            continue
        extra = sorted(set(entry) - set(SAMPLE_FIELDS))
        if extra:
            check.add(key, f"Unknown field(s) {', '.join(map(str, extra))}; a sample takes "
                           f"{', '.join(SAMPLE_FIELDS)}.")
        sample_id = entry.get("sampleId")
        number = _ids([sample_id]) if sample_id is not None else None
        sample = None
        if number:
            sample = db.scalar(select(Sample).join(ProjectSample).where(
                ProjectSample.project_id == project.id, Sample.id == number[0]))
        if sample is None:
            check.add(f"{key}.sampleId", f"No sample {sample_id!r} in project {project.id}.")
            continue
        if sample.id in seen:
            check.add(f"{key}.sampleId", f"{_label(sample)} is listed twice.")
            continue
        seen.add(sample.id)
        objects = _objects(db, check, key, sample, entry.get("sequencingObjects"), layouts)
        library: dict[str, str | None] = {
            **{k: v for k, v in defaults.items() if v is not None},
            **{k: v for k, v in _library(check, f"{key}.", entry, vocabulary).items()
               if v is not None}}
        for required, label in (("libraryStrategy", "library strategy"),
                                ("librarySource", "library source"),
                                ("librarySelection", "library selection"),
                                ("instrumentModel", "instrument model")):
            if required not in library and f"{key}.{required}" not in check.problems and \
                    required not in check.problems:
                check.add(f"{key}.{required}", f"{_label(sample)}: the {label} is required "
                                               f"(for the sample, or for all samples).")
        name = entry.get("libraryName")
        if name is not None and _text(name) is None:
            check.add(f"{key}.libraryName", f"{_label(sample)}: the library name must be text "
                                            f"of at most {MAX_TEXT} characters.")
        library["libraryName"] = _text(name) or sample.name
        bio_sample = entry.get("bioSample")
        if bio_sample is not None and (not isinstance(bio_sample, str)
                                       or not BIOSAMPLE.fullmatch(bio_sample)):
            check.add(f"{key}.bioSample", f"{_label(sample)}: an existing BioSample is named "
                                          "by its accession (SAMN..., SAMEA..., SAMD...).")
            bio_sample = None
        library["bioSample"] = bio_sample
        planned.append((sample, objects, library))
        listed_at[sample.id] = index

    new_biosamples = [sample for sample, _, library in planned if not library["bioSample"]]
    if new_biosamples and package is None and "bioSamplePackage" not in check.problems:
        check.add("bioSamplePackage", "The BioSample package is required to create "
                                      "BioSamples (for samples without a 'bioSample').")
    attributes = submission_attributes(db, caller, [s for s, _, _ in planned], mapping)
    if package is not None:
        for sample, _, library in planned:
            if library["bioSample"]:
                continue
            missing = missing_attributes(package, attributes[sample.id])
            if missing:
                key = f"samples.{listed_at[sample.id]}.attributes"
                for name in missing:
                    source = (f"metadata field {mapping[name]!r}" if name in mapping
                              else "a mapped metadata field or the sample's own field")
                    where = ("every BioSample" if name in ALWAYS_REQUIRED
                             and name not in package.required else package.name)
                    check.add(key, f"{_label(sample)}: BioSample attribute {name!r}, "
                                   f"mandatory in {where}, has no value ({source}).")
    if check.problems:
        raise Invalid(check.problems)
    return _store(db, caller, project, planned, attributes, mapping, package,
                  bio_project=str(bio_project), organization=str(organization),
                  namespace=str(namespace), release_date=release_date, layouts=layouts)


def _objects(db: Session, check: _Checker, key: str, sample: Sample, given: Any,
             layouts: Mapping[str, str]) -> list[SequencingObject]:
    """The sample's reads to send: the objects named, or its latest processed object of a
    kind the SRA takes."""
    label = _label(sample)
    if given is None:
        latest = db.scalar(select(SequencingObject).where(
            SequencingObject.sample_id == sample.id,
            SequencingObject.kind.in_(list(layouts)),
            SequencingObject.processing_state == ProcessingState.FINISHED.value)
            .order_by(SequencingObject.id.desc()).limit(1))
        if latest is None:
            check.add(f"{key}.sequencingObjects",
                      f"{label} has no processed reads NCBI's SRA takes "
                      f"({', '.join(sorted(layouts)) or 'no file kind declares an SRA layout'}).")
            return []
        return [latest]
    ids = _ids(given)
    if not ids:
        check.add(f"{key}.sequencingObjects", f"{label}: 'sequencingObjects' must be a "
                                              "non-empty list of ids.")
        return []
    objects = []
    for object_id in dict.fromkeys(ids):
        obj = db.get(SequencingObject, object_id)
        if obj is None or obj.sample_id != sample.id:
            check.add(f"{key}.sequencingObjects", f"{label} has no sequencing object "
                                                  f"{object_id}.")
        elif obj.kind not in layouts:
            check.add(f"{key}.sequencingObjects",
                      f"{label}: sequencing object {object_id} is {obj.kind}, which NCBI's "
                      f"SRA does not take here ({', '.join(sorted(layouts))} it does).")
        elif obj.processing_state != ProcessingState.FINISHED.value:
            check.add(f"{key}.sequencingObjects",
                      f"{label}: sequencing object {object_id} is "
                      f"{obj.processing_state}; only processed reads are sent.")
        else:
            objects.append(obj)
    return objects


def _store(db: Session, caller: Actor, project: Project,
           planned: Sequence[tuple[Sample, list[SequencingObject], dict[str, Any]]],
           attributes: Mapping[int, Mapping[str, str]], mapping: Mapping[str, str],
           package: Package | None, *, bio_project: str, organization: str, namespace: str,
           release_date: date | None, layouts: Mapping[str, str]) -> NcbiSubmission:
    now = utcnow()
    user = db.get(User, caller.user_id) if caller.user_id is not None else None
    contact = ({"email": user.email, "first": user.first_name, "last": user.last_name}
               if user is not None else {})
    submission = NcbiSubmission(
        project_id=project.id, submitter_id=caller.user_id, bio_project=bio_project,
        organization=organization, namespace=namespace, release_date=release_date,
        package=package.name if package is not None else None, contact=contact,
        attribute_fields=dict(mapping), state=ExportUploadState.NEW.value,
        history=[[ExportUploadState.NEW.value, epoch_ms(now)]], created=now)
    db.add(submission)
    db.flush()
    for position, (sample, objects, library) in enumerate(planned):
        spuid = f"{sample.puid}-n{submission.id}"
        row = NcbiSubmissionSample(
            position=position, sample_id=sample.id, sample_name=sample.name, spuid=spuid,
            bio_sample=library["bioSample"],
            attributes={} if library["bioSample"] else dict(sorted(
                attributes[sample.id].items())),
            library_name=library["libraryName"],
            library_strategy=library["libraryStrategy"],
            library_source=library["librarySource"],
            library_selection=library["librarySelection"],
            library_construction_protocol=library.get("libraryConstructionProtocol"),
            instrument_model=library["instrumentModel"],
            write_back=caller.may(Permission.SAMPLE_WRITE, "samples", str(sample.id)))
        for obj in objects:
            row.runs.append(NcbiSubmissionRun(object_id=obj.id, spuid=f"{spuid}-r{obj.id}",
                                              layout=layouts[obj.kind]))
        submission.samples.append(row)
    db.flush()
    return submission


def project_submissions(db: Session, project_id: int) -> list[NcbiSubmission]:
    """A project's submissions, oldest first, with their samples and runs (a fixed number
    of statements however many there are)."""
    return list(db.scalars(select(NcbiSubmission).where(
        NcbiSubmission.project_id == project_id).order_by(NcbiSubmission.id)
        .options(selectinload(NcbiSubmission.samples))))
