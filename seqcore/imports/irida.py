"""Reading an IRIDA install (IRIDA's REST dialect, as seqcore also serves it) into a
:class:`~seqcore.imports.plan.Plan`.

Every value is checked here with the rules this install applies to a client's write
(:mod:`seqcore.parsing.schemas`, the metadata types), so a dry run finds every name this
install refuses before anything is written. What IRIDA's REST API does not show cannot be
carried over: the sequencing run of a file (IRIDA hides it), QC records (recomputed here),
the analysis's intermediate files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid
from seqcore.framework.contrib import FileKind
from seqcore.imports.idmap import IdMap
from seqcore.imports.plan import (
    Plan,
    RemoteFile,
    RemoteObject,
    RemoteProject,
    RemoteSample,
    RemoteSubmission,
)
from seqcore.imports.remote import Remote, RemoteError, link, resources
from seqcore.models.user import User
from seqcore.parsing.schemas import ProjectSchema, SampleSchema, check
from seqcore.samples.metadata import parse_metadata

REMOTE_KIND = "irida"

PROJECT_FIELDS = {
    "name": "name", "projectDescription": "description", "organism": "organism",
    "genomeSize": "genome_size", "minimumCoverage": "minimum_coverage",
    "maximumCoverage": "maximum_coverage",
}
SAMPLE_FIELDS = {
    "sampleName": "name", "description": "description", "organism": "organism",
    "isolate": "isolate", "strain": "strain", "collectedBy": "collected_by",
    "collectionDate": "collection_date", "geographicLocationName": "geographic_location_name",
    "isolationSource": "isolation_source", "latitude": "latitude", "longitude": "longitude",
}
# A file's fields that are not its optional properties.
FILE_FIELDS = {"file", "createdDate", "modifiedDate", "uploadSha256", "label", "fileName",
               "fileSizeBytes", "links", "identifier", "processingState", "fileProcessor",
               "fileRevisionNumber", "fileSize"}
ASSEMBLY_MEDIA_TYPE = "application/fasta"
ASSEMBLIES = "\0assemblies"  # a key no file kind's segment can be
#: A file's link at its object, which names the kind (its path segment) and the object.
OBJECT_FILE = re.compile(
    r"/samples/(?P<sample>\d+)/(?P<segment>[^/]+)/(?P<object>\d+)/files/\d+/?$")
#: Requests in flight at once while reading samples' files.
READERS = 8


def _problems(err: Invalid) -> str:
    parts = [f"{key}: {' '.join(messages)}" for key, messages in err.problems.items()]
    return "; ".join(parts) or str(err)


def local_member(db: Session, remote_user: Mapping[str, Any], member_map: Mapping[str, str]
                 ) -> User | None:
    """The local account a remote member maps to: the one ``member_map`` names for its user
    name or e-mail, else the account with the same user name, else the same e-mail."""
    username = str(remote_user.get("username") or "")
    email = str(remote_user.get("email") or "")
    wanted = member_map.get(username) or member_map.get(email)
    if wanted is not None:
        return db.scalar(select(User).where((User.username == wanted) | (User.email == wanted)))
    found = db.scalar(select(User).where(User.username == username)) if username else None
    if found is None and email:
        found = db.scalar(select(User).where(func.lower(User.email) == email.lower()))
    return found


class IridaReader:
    """Reads projects, their members, samples, metadata, files, assemblies and analyses."""

    def __init__(self, remote: Remote, db: Session, kinds: Mapping[str, FileKind],
                 metadata_types: Mapping[str, Any], idmap: IdMap,
                 member_map: Mapping[str, str], analysis_types: Mapping[str, Any],
                 assemblies: bool) -> None:
        self.remote = remote
        self.db = db
        self.kinds = kinds
        self.metadata_types = metadata_types
        self.idmap = idmap
        self.member_map = member_map
        self.analysis_types = analysis_types
        self.assemblies = assemblies

    def read(self, project_ids: list[str] | None) -> Plan:
        plan = Plan(self.remote.base, REMOTE_KIND)
        _ = self.remote.token  # obtained once, before requests run in threads
        if project_ids:
            entries = [self.remote.get_json(f"projects/{pid}")["resource"]
                       for pid in project_ids]
        else:
            entries = resources(self.remote.get_json("projects"))
        for entry in entries:
            plan.projects.append(self._project(plan, entry))
        return plan

    def _project(self, plan: Plan, entry: dict[str, Any]) -> RemoteProject:
        pid = str(entry["identifier"])
        subject = f"project {pid} ({entry.get('name')})"
        wire = {k: entry.get(k) for k in PROJECT_FIELDS}
        project = RemoteProject(pid, {})
        try:
            values = check(ProjectSchema(), wire, allow_unknown=True)
            project.values = {PROJECT_FIELDS[k]: v for k, v in values.items()}
        except Invalid as err:
            plan.problem(subject, f"this install refuses the project: {_problems(err)}")
            return project
        mapped = self.idmap.local(self.db, "project", pid)
        if mapped is None:
            plan.count("project")
            from seqcore.models.project import Project

            if self.db.scalar(select(Project.id).where(Project.name == project.values["name"])):
                plan.problem(subject, "a project of this name exists here already; the import "
                             "makes another one beside it", blocking=False)
        self._members(plan, project, subject)
        self._samples(plan, project)
        self._submissions(plan, project, subject)
        return project

    def _members(self, plan: Plan, project: RemoteProject, subject: str) -> None:
        for user in resources(self.remote.get_json(f"projects/{project.remote_id}/users")):
            local = local_member(self.db, user, self.member_map)
            role = str(user.get("projectRole") or "PROJECT_USER")
            if local is None:
                plan.problem(subject, f"member {user.get('username')} ({user.get('email')}) "
                             "maps to no account here (--member-map names one)",
                             blocking=False)
                continue
            project.members.append((local.username, role,
                                    str(user.get("metadataRole") or "")))

    def _samples(self, plan: Plan, project: RemoteProject) -> None:
        pid = project.remote_id
        metadata = {}
        for entry in resources(self.remote.get_json(f"projects/{pid}/samples/metadata")):
            href = link(entry, "sample") or ""
            metadata[href.rstrip("/").rsplit("/", 1)[-1]] = entry.get("metadata") or {}
        mapped = self.idmap.known(self.db, "sample")
        listed = resources(self.remote.get_json(f"projects/{pid}/samples"))
        # Each sample's files take a request per file kind: several at a time.
        with ThreadPoolExecutor(READERS) as pool:
            listings = list(pool.map(self._listings, [str(e["identifier"]) for e in listed]))
        for entry, listing in zip(listed, listings, strict=True):
            sid = str(entry["identifier"])
            subject = f"sample {sid} ({entry.get('sampleName')}) of project {pid}"
            try:
                values = check(SampleSchema(), {k: entry.get(k) for k in SAMPLE_FIELDS},
                               allow_unknown=True)
            except Invalid as err:
                plan.problem(subject, f"this install refuses the sample: {_problems(err)}")
                continue
            sample = RemoteSample(sid, {SAMPLE_FIELDS[k]: v for k, v in values.items()})
            entries, _, problems = parse_metadata(metadata.get(sid, {}), self.metadata_types,
                                                  allow_delete=False)
            for field, messages in problems.items():
                plan.problem(subject, f"metadata field {field!r} not copied: "
                             + " ".join(messages), blocking=False)
            sample.metadata = entries
            new_sample = sid not in mapped
            if new_sample:
                plan.count("sample")
                if entries:
                    plan.count("metadata", len(entries))
            self._objects(plan, sample, subject, listing)
            project.samples.append(sample)

    def _listings(self, sid: str) -> dict[str, Any]:
        """The sample's objects of each local file kind, and its assemblies (``None``: the
        other install has no such kind).

        One request finds the objects: the list of all the sample's files, whose links name
        each file's kind and object (``samples/{sid}/pairs/{oid}/files/{fid}``, as IRIDA
        links them) and which carries every field of the files. A kind whose files are not
        linked so is asked for on its own."""
        files = self.remote.get_json_or_none(f"samples/{sid}/sequenceFiles")
        grouped: dict[str, dict[str, list[dict[str, Any]]]] = {s: {} for s in self.kinds}
        unplaced = files is None
        for entry in resources(files) if files is not None else []:
            found = OBJECT_FILE.search(link(entry, "self") or "")
            if found is None or found["sample"] != sid:
                unplaced = True
            elif found["segment"] in grouped:
                grouped[found["segment"]].setdefault(found["object"], []).append(entry)
        listing: dict[str, Any] = {
            segment: {"resource": {"resources": [
                {"identifier": oid, "files": entries} for oid, entries in objects.items()]}}
            for segment, objects in grouped.items()}
        if unplaced:
            for segment in self.kinds:
                listing[segment] = self.remote.get_json_or_none(f"samples/{sid}/{segment}")
        if self.assemblies:
            listing[ASSEMBLIES] = self.remote.get_json_or_none(f"samples/{sid}/assemblies")
        return listing

    def _objects(self, plan: Plan, sample: RemoteSample, subject: str,
                 listing: Mapping[str, Any]) -> None:
        mapped = self.idmap.known(self.db, "sequencing_object")
        for segment, kind in self.kinds.items():
            answer = listing[segment]
            if answer is None:
                continue
            for entry in resources(answer):
                files = entry.get("files") or [entry.get("sequenceFile") or entry.get("file")]
                obj = RemoteObject(str(entry["identifier"]), kind.name,
                                   [self._file(f, kind.media_types[0]) for f in files if f])
                if len(obj.files) != kind.files:
                    plan.problem(subject, f"{segment} {obj.remote_id} holds {len(obj.files)} "
                                 f"file(s), not {kind.files}")
                    continue
                sample.objects.append(obj)
                if f"{kind.name}:{obj.remote_id}" not in mapped:
                    plan.count("sequencing_object")
                    plan.count("file", len(obj.files))
                    plan.count("bytes", sum(f.size or 0 for f in obj.files))
        if not self.assemblies:
            return
        answer = listing[ASSEMBLIES]
        known = self.idmap.known(self.db, "assembly")
        for entry in resources(answer) if answer is not None else []:
            assembly = RemoteObject(str(entry["identifier"]), "assembly",
                                    [self._file(entry, ASSEMBLY_MEDIA_TYPE)])
            sample.assemblies.append(assembly)
            if assembly.remote_id not in known:
                plan.count("assembly")
                plan.count("bytes", assembly.files[0].size or 0)

    @staticmethod
    def _file(entry: dict[str, Any], accept: str) -> RemoteFile:
        extra = {k: v for k, v in entry.items() if k not in FILE_FIELDS and isinstance(v, str)}
        size = entry.get("fileSizeBytes")
        return RemoteFile(str(entry["identifier"]), link(entry, "self") or "",
                          str(entry.get("fileName") or entry.get("label")),
                          int(size) if size is not None else None,
                          entry.get("uploadSha256"), accept, extra)

    def _submissions(self, plan: Plan, project: RemoteProject, subject: str) -> None:
        answer = self.remote.get_json_or_none(f"projects/{project.remote_id}/analyses")
        known = self.idmap.known(self.db, "analysis_submission")
        for listed in resources(answer) if answer is not None else []:
            href = link(listed, "self") or f"analysisSubmissions/{listed['identifier']}"
            entry = self.remote.get_json(href)["resource"]
            rid = str(entry["identifier"])
            what = f"analysis submission {rid} ({entry.get('name')})"
            if entry.get("analysisState") != "COMPLETED":
                plan.problem(what, f"not copied: it is {entry.get('analysisState')}, only "
                             "completed analyses are", blocking=False)
                continue
            analysis = self.remote.get_json(f"analysisSubmissions/{rid}/analysis")["resource"]
            type_name = str(entry.get("analysisType")
                            or (analysis.get("analysisType") or {}).get("type", "")).lower()
            if type_name not in self.analysis_types:
                plan.problem(what, f"not copied: its analysis type {type_name!r} is not "
                             "installed here")
                continue
            inputs = []
            for segment in self.kinds:
                listed_inputs = self.remote.get_json_or_none(
                    f"analysisSubmissions/{rid}/sequenceFiles/{segment}")
                inputs += [f"{self.kinds[segment].name}:{i['identifier']}"
                           for i in (resources(listed_inputs) if listed_inputs else [])]
            outputs = []
            for item in analysis.get("links", []):
                if not item["rel"].startswith("outputFile/"):
                    continue
                record = self.remote.get_json(item["href"])["resource"]
                key = item["rel"].split("/", 1)[1]
                name = str(record.get("label") or record.get("file", key)).rsplit("/", 1)[-1]
                size = record.get("fileSizeBytes")
                outputs.append(RemoteObject(str(record.get("identifier", key)), key, [
                    RemoteFile(key, item["href"], name, int(size) if size is not None else None,
                               None, "text/plain")]))
            submission = RemoteSubmission(
                rid, str(entry.get("name") or "Unknown"), type_name,
                str(entry.get("workflowId") or ""),
                {k: str(v) for k, v in (entry.get("inputParameters") or {}).items()},
                entry.get("analysisDescription"), str(entry.get("priority") or "MEDIUM"),
                inputs, outputs, entry.get("createdDate"))
            project.submissions.append(submission)
            if rid not in known:
                plan.count("analysis_submission")
                plan.count("bytes", sum(o.files[0].size or 0 for o in outputs))


def read_plan(remote: Remote, db: Session, registry: Any, idmap: IdMap,
              member_map: Mapping[str, str], project_ids: list[str] | None) -> Plan:
    """Read what an import of ``project_ids`` (``None``: every project the account reads)
    would copy."""
    from seqcore.analysis.registry import analysis_registry
    from seqcore.resources.files import registered_kinds

    reader = IridaReader(remote, db, registered_kinds(registry),
                         registry.get("seqcore.metadata_types", {}), idmap, member_map,
                         analysis_registry(registry).types,
                         assemblies=bool(registry.pm.hook.import_assembly.get_hookimpls()))
    try:
        return reader.read(project_ids)
    except RemoteError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise RemoteError(f"{remote.api} answered something that is not IRIDA's REST API: "
                          f"{err!r}") from None
