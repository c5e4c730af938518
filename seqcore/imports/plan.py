"""What an import will copy, read from the other install before anything is written, and
every problem found on the way (what a dry run prints).

The readers (:mod:`seqcore.imports.irida`, :mod:`seqcore.imports.iridanext`) fill it in the
same shape whatever the dialect; :mod:`seqcore.imports.copying` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """Something the import cannot carry over as it is. ``blocking`` problems stop the
    object they are about from being copied (a sample name this install refuses); the
    others are reported and the rest goes on (an unmapped member)."""

    subject: str
    message: str
    blocking: bool = True

    def __str__(self) -> str:
        return f"{self.subject}: {self.message}"


@dataclass
class RemoteFile:
    """One file to download: where, under which name, how large, its SHA-256 when the
    other install gives one (checked against the bytes received)."""

    remote_id: str
    href: str
    file_name: str
    size: int | None
    sha256: str | None
    accept: str
    properties: dict[str, str] = field(default_factory=dict)


@dataclass
class RemoteObject:
    """A sequencing object of a local file kind (``pairs``, ``unpaired``, ``fast5``...),
    an assembly (``kind`` ``assembly``), or an analysis output (``kind`` the output key)."""

    remote_id: str
    kind: str
    files: list[RemoteFile]
    run_id: str | None = None


@dataclass
class RemoteSample:
    remote_id: str
    values: dict[str, Any]
    metadata: dict[str, tuple[str, str]] = field(default_factory=dict)
    objects: list[RemoteObject] = field(default_factory=list)
    assemblies: list[RemoteObject] = field(default_factory=list)
    #: Files attached to the sample (IRIDA Next): attached here as they were there.
    attachments: list[RemoteFile] = field(default_factory=list)
    puid: str | None = None


@dataclass
class RemoteSubmission:
    """An analysis submission, copied as a completed record with its outputs."""

    remote_id: str
    name: str
    analysis_type: str
    workflow_id: str
    parameters: dict[str, str]
    description: str | None
    priority: str
    inputs: list[str]
    outputs: list[RemoteObject]
    created: int | None = None


@dataclass
class RemoteProject:
    remote_id: str
    values: dict[str, Any]
    members: list[tuple[str, str, str]] = field(default_factory=list)
    samples: list[RemoteSample] = field(default_factory=list)
    submissions: list[RemoteSubmission] = field(default_factory=list)
    group: str | None = None
    puid: str | None = None


@dataclass
class RemoteGroup:
    remote_id: str
    name: str
    path: str
    description: str | None
    parent: str | None
    puid: str | None = None


@dataclass
class Plan:
    """Everything one import reads; ``new_*`` count what is not in the id map yet."""

    remote: str
    remote_kind: str
    groups: list[RemoteGroup] = field(default_factory=list)
    projects: list[RemoteProject] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    new: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, n: int = 1) -> None:
        self.new[what] = self.new.get(what, 0) + n

    def problem(self, subject: str, message: str, blocking: bool = True) -> None:
        self.problems.append(Problem(subject, message, blocking))

    @property
    def samples(self) -> int:
        return sum(len(p.samples) for p in self.projects)

    def describe(self) -> list[str]:
        """What will be copied (new objects only), then every problem, one a line."""
        lines = [f"{self.remote_kind} install {self.remote}: {len(self.projects)} project(s), "
                 f"{self.samples} sample(s) read"]
        wanted = ("group", "project", "member", "sample", "metadata", "sequencing_object",
                  "file", "assembly", "analysis_submission", "bytes")
        new = [f"{self.new[k]} {k.replace('_', ' ')}(s)" if k != "bytes" else
               f"{self.new[k]} bytes" for k in wanted if self.new.get(k)]
        lines.append("to copy: " + (", ".join(new) if new else "nothing (all copied already)"))
        lines.extend(f"problem: {p}" + ("" if p.blocking else " (not copied; the rest is)")
                     for p in self.problems)
        return lines
