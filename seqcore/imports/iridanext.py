"""Reading an IRIDA Next install over GraphQL (IRIDA Next's schema, as seqcore also serves
it) into a :class:`~seqcore.imports.plan.Plan`: groups with their structure, projects,
samples with their metadata and attached files, and every PUID.

Names are checked with the rules this install's GraphQL applies to IRIDA Next's clients
(:class:`~seqcore.parsing.schemas.IridaNextSampleSchema`: a sample may be called ``Outbreak
2026 sample`` here too). IRIDA Next's GraphQL gives no checksum of an attachment: its size is
checked, and the SHA-256 of the copy is recorded here. Members are not read (IRIDA Next's
GraphQL lists group members only, with its own access levels).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid
from seqcore.imports.idmap import IdMap
from seqcore.imports.irida import _problems
from seqcore.imports.plan import Plan, RemoteFile, RemoteGroup, RemoteProject, RemoteSample
from seqcore.imports.remote import Remote, RemoteError
from seqcore.models.group import Group
from seqcore.models.project import Project
from seqcore.models.puid import IssuedPuid
from seqcore.parsing.schemas import IridaNextSampleSchema, ProjectSchema, check
from seqcore.samples.metadata import parse_metadata

REMOTE_KIND = "irida-next"

GROUPS = """query($after: String) { groups(first: 50, after: $after) {
  nodes { id puid name path fullPath description parent { id } }
  pageInfo { hasNextPage endCursor } } }"""
PROJECTS = """query($after: String) { projects(first: 50, after: $after) {
  nodes { id puid name description fullPath parent { fullPath } }
  pageInfo { hasNextPage endCursor } } }"""
PROJECT = """query($fullPath: ID, $puid: ID) { project(fullPath: $fullPath, puid: $puid) {
  id puid name description fullPath parent { fullPath } } }"""
# Pages sized to stay under IRIDA Next's default query complexity (550, graphql-ruby's
# rule): a sample's attachments are read by a query of their own.
SAMPLES = """query($fullPath: ID!, $after: String) { project(fullPath: $fullPath) {
  samples(first: 50, after: $after) { nodes { id puid name description metadata }
    pageInfo { hasNextPage endCursor } } } }"""
ATTACHMENTS = """query($puid: ID!, $after: String) { sample(puid: $puid) {
  attachments(first: 80, after: $after) { nodes { id puid filename byteSize attachmentUrl }
    pageInfo { hasNextPage endCursor } } } }"""


def graphql(remote: Remote, query: str, variables: Mapping[str, Any]) -> Any:
    answer = remote.post_json(remote.base + "/api/graphql",
                              {"query": query, "variables": dict(variables)})
    if answer.get("errors"):
        raise RemoteError("GraphQL: " + "; ".join(e.get("message", "?")
                                                  for e in answer["errors"]))
    return answer["data"]


def pages(remote: Remote, query: str, path: list[str], variables: Mapping[str, Any]
          ) -> Iterator[dict[str, Any]]:
    """Every node of the connection at ``path``, page after page."""
    after = None
    while True:
        data = graphql(remote, query, {**variables, "after": after})
        for key in path:
            data = data[key]
            if data is None:
                return
        yield from data["nodes"]
        if not data["pageInfo"]["hasNextPage"]:
            return
        after = data["pageInfo"]["endCursor"]


def puid_free(db: Session, value: str | None) -> bool:
    """Whether this install may give an object the PUID ``value``: no object here holds or
    held it."""
    return bool(value) and db.get(IssuedPuid, value) is None


class IridaNextReader:
    def __init__(self, remote: Remote, db: Session, metadata_types: Mapping[str, Any],
                 idmap: IdMap) -> None:
        self.remote = remote
        self.db = db
        self.metadata_types = metadata_types
        self.idmap = idmap

    def read(self, projects: list[str] | None) -> Plan:
        plan = Plan(self.remote.base, REMOTE_KIND)
        if projects:
            found = []
            for wanted in projects:
                key = "puid" if wanted.startswith("INXT_") else "fullPath"
                node = graphql(self.remote, PROJECT, {key: wanted})["project"]
                if node is None:
                    raise RemoteError(f"no project {wanted} there (or not readable)")
                found.append(node)
        else:
            found = list(pages(self.remote, PROJECTS, ["projects"], {}))
        self._groups(plan, {p["parent"]["fullPath"] for p in found})
        by_path = {g.path: g.remote_id for g in plan.groups}
        for node in found:
            plan.projects.append(self._project(plan, node, by_path))
        return plan

    def _groups(self, plan: Plan, namespaces: set[str]) -> None:
        """The groups the projects live in and every group above them, parents first."""
        groups = {g["id"]: g for g in pages(self.remote, GROUPS, ["groups"], {})}
        wanted: set[str] = set()
        for group in groups.values():
            if group["fullPath"] in namespaces:
                current: dict[str, Any] | None = group
                while current is not None and current["id"] not in wanted:
                    wanted.add(current["id"])
                    parent = current.get("parent")
                    current = groups.get(parent["id"]) if parent else None
        mapped = self.idmap.known(self.db, "group")

        def depth(group: dict[str, Any]) -> int:
            return str(group["fullPath"]).count("/")

        for group in sorted((groups[g] for g in wanted), key=depth):
            parent = group.get("parent")
            remote_group = RemoteGroup(group["id"], group["name"], group["fullPath"],
                                       group.get("description"),
                                       parent["id"] if parent else None, group.get("puid"))
            plan.groups.append(remote_group)
            if group["id"] in mapped:
                continue
            plan.count("group")
            if self.db.scalar(select(Group.id).where(Group.full_path == group["fullPath"])):
                plan.problem(f"group {group['fullPath']}", "a group of this path exists here; "
                             "the import makes its own beside it", blocking=False)
            if not puid_free(self.db, group.get("puid")):
                plan.problem(f"group {group['fullPath']}", f"PUID {group.get('puid')} is "
                             "taken here: the copy gets a new one", blocking=False)

    def _project(self, plan: Plan, node: dict[str, Any], groups: Mapping[str, str]
                 ) -> RemoteProject:
        subject = f"project {node['fullPath']}"
        project = RemoteProject(node["id"], {}, group=groups.get(node["parent"]["fullPath"]),
                                puid=node.get("puid"))
        try:
            values = check(ProjectSchema(), {"name": node["name"],
                                             "projectDescription": node.get("description")},
                           allow_unknown=True)
        except Invalid as err:
            plan.problem(subject, f"this install refuses the project: {_problems(err)}")
            return project
        project.values = {"name": values["name"], "description": values.get(
            "projectDescription")}
        if self.idmap.local(self.db, "project", project.remote_id) is None:
            plan.count("project")
            if self.db.scalar(select(Project.id).where(Project.name == node["name"])):
                plan.problem(subject, "a project of this name exists here already; the "
                             "import makes another one beside it", blocking=False)
            if not puid_free(self.db, project.puid):
                plan.problem(subject, f"PUID {project.puid} is taken here: the copy gets a "
                             "new one", blocking=False)
        self._samples(plan, project, node["fullPath"])
        return project

    def _samples(self, plan: Plan, project: RemoteProject, full_path: str) -> None:
        mapped = self.idmap.known(self.db, "sample")
        attached = self.idmap.known(self.db, "attachment")
        for node in pages(self.remote, SAMPLES, ["project", "samples"],
                          {"fullPath": full_path}):
            subject = f"sample {node.get('puid')} ({node['name']}) of {full_path}"
            try:
                values = check(IridaNextSampleSchema(), {
                    "sampleName": node["name"], "description": node.get("description")},
                    allow_unknown=True)
            except Invalid as err:
                plan.problem(subject, f"this install refuses the sample: {_problems(err)}")
                continue
            sample = RemoteSample(node["id"], {"name": values["sampleName"],
                                               "description": values.get("description")},
                                  puid=node.get("puid"))
            entries, _, problems = parse_metadata(
                {k: {"value": v} for k, v in (node.get("metadata") or {}).items()},
                self.metadata_types, allow_delete=False)
            for field, messages in problems.items():
                plan.problem(subject, f"metadata field {field!r} not copied: "
                             + " ".join(messages), blocking=False)
            sample.metadata = entries
            if node["id"] not in mapped:
                plan.count("sample")
                plan.count("metadata", len(entries))
                if not puid_free(self.db, sample.puid):
                    plan.problem(subject, f"PUID {sample.puid} is taken here: the copy gets "
                                 "a new one", blocking=False)
            for item in pages(self.remote, ATTACHMENTS, ["sample", "attachments"],
                              {"puid": node["puid"]}):
                sample.attachments.append(RemoteFile(
                    item["id"], item["attachmentUrl"], item["filename"], item["byteSize"],
                    None, "application/octet-stream", {"puid": item.get("puid") or ""}))
                if item["id"] not in attached:
                    plan.count("file")
                    plan.count("bytes", int(item["byteSize"] or 0))
            project.samples.append(sample)


def read_plan(remote: Remote, db: Session, registry: Any, idmap: IdMap,
              member_map: Mapping[str, str], project_ids: list[str] | None) -> Plan:
    """What an import of ``project_ids`` (full paths or PUIDs; ``None``: every project the
    account reads) would copy. ``member_map`` is not used: members are not read."""
    reader = IridaNextReader(remote, db, registry.get("seqcore.metadata_types", {}), idmap)
    try:
        return reader.read(project_ids)
    except RemoteError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise RemoteError(f"{remote.base} answered something that is not IRIDA Next's "
                          f"GraphQL API: {err!r}") from None
