"""The two documents of the exchange with NCBI: the ``submission.xml`` seqcore writes, and
the ``report.xml`` NCBI writes back into the submission's directory.

``submission.xml`` follows the Submission Portal's format for SRA + BioSample
(``seqcore.ncbi.schema`` holds its element tree): one ``Action/AddData`` per new BioSample
(its attributes in ``Data/XmlContent/BioSample``, identified by an SPUID), and one
``Action/AddFiles`` per run, naming its files, its library, the BioProject, and its BioSample
(the new one's SPUID, or an existing accession).

``report.xml`` is ``SubmissionStatus`` (``status``, ``submission_id``) with one ``Action``
per action sent (``action_id`` = ``<submission_id>-<spuid>``, ``target_db``, ``status``),
each with a ``Response`` whose ``Object`` carries the ``accession`` NCBI assigned (``SAMN…``
for a BioSample, ``SRR…`` for a run) and the ``spuid`` it answers, and whose ``Message`` s
explain an error. It is parsed with the standard library's ElementTree: it comes from NCBI's
server, expat refuses entity expansion attacks, and the worker caps its size.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import cast

from seqcore.models.ncbi import ExportUploadState

DATA_TYPE = "generic-data"


@dataclass(frozen=True)
class Contact:
    """Who NCBI writes to about the submission: the submitter."""

    email: str
    first: str
    last: str


@dataclass(frozen=True)
class RunDocument:
    spuid: str
    layout: str
    files: Sequence[str]


@dataclass(frozen=True)
class SampleDocument:
    """A sample as the document says it: a new BioSample (``bio_sample`` ``None``) with its
    attributes, or an existing accession; its library; its runs."""

    spuid: str
    title: str
    bio_sample: str | None
    organism: str
    attributes: Sequence[tuple[str, str]]
    library: Mapping[str, str]
    runs: Sequence[RunDocument]


@dataclass(frozen=True)
class SubmissionDocument:
    bio_project: str
    organization: str
    contact: Contact
    namespace: str
    package: str | None
    release_date: date | None
    comment: str
    samples: Sequence[SampleDocument]


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def _spuid(parent: ET.Element, namespace: str, value: str) -> None:
    _sub(parent, "SPUID", value, spuid_namespace=namespace)


def _description(root: ET.Element, doc: SubmissionDocument) -> None:
    description = _sub(root, "Description")
    _sub(description, "Comment", doc.comment)
    organization = _sub(description, "Organization", type="institute", role="owner")
    _sub(organization, "Name", doc.organization)
    contact = _sub(organization, "Contact", email=doc.contact.email)
    name = _sub(contact, "Name")
    if doc.contact.first:
        _sub(name, "First", doc.contact.first)
    _sub(name, "Last", doc.contact.last or doc.contact.email)
    if doc.release_date is not None:
        _sub(description, "Hold", release_date=doc.release_date.isoformat())


def _biosample(root: ET.Element, doc: SubmissionDocument, sample: SampleDocument) -> None:
    add = _sub(_sub(root, "Action"), "AddData", target_db="BioSample")
    content = _sub(_sub(add, "Data", content_type="xml"), "XmlContent")
    biosample = _sub(content, "BioSample", schema_version="2.0")
    _spuid(_sub(biosample, "SampleId"), doc.namespace, sample.spuid)
    _sub(_sub(biosample, "Descriptor"), "Title", sample.title)
    _sub(_sub(biosample, "Organism"), "OrganismName", sample.organism)
    _sub(_sub(biosample, "BioProject"), "PrimaryId", doc.bio_project, db="BioProject")
    _sub(biosample, "Package", doc.package or "")
    attributes = _sub(biosample, "Attributes")
    for name, value in sample.attributes:
        _sub(attributes, "Attribute", value, attribute_name=name)
    _spuid(_sub(add, "Identifier"), doc.namespace, sample.spuid)


def _run(root: ET.Element, doc: SubmissionDocument, sample: SampleDocument,
         run: RunDocument) -> None:
    add = _sub(_sub(root, "Action"), "AddFiles", target_db="SRA")
    for name in run.files:
        _sub(_sub(add, "File", file_path=name), "DataType", DATA_TYPE)
    for key, value in sample.library.items():
        if value:
            _sub(add, "Attribute", value, name=key)
    _sub(add, "Attribute", run.layout, name="library_layout")
    project_ref = _sub(_sub(add, "AttributeRefId", name="BioProject"), "RefId")
    _sub(project_ref, "PrimaryId", doc.bio_project, db="BioProject")
    sample_ref = _sub(_sub(add, "AttributeRefId", name="BioSample"), "RefId")
    if sample.bio_sample:
        _sub(sample_ref, "PrimaryId", sample.bio_sample, db="BioSample")
    else:
        _spuid(sample_ref, doc.namespace, sample.spuid)
    _spuid(_sub(add, "Identifier"), doc.namespace, run.spuid)


def submission_element(doc: SubmissionDocument) -> ET.Element:
    root = ET.Element("Submission")
    _description(root, doc)
    for sample in doc.samples:
        if not sample.bio_sample:
            _biosample(root, doc, sample)
        for run in sample.runs:
            _run(root, doc, sample, run)
    return root


def submission_xml(doc: SubmissionDocument) -> bytes:
    """``submission.xml``, UTF-8, indented."""
    root = submission_element(doc)
    ET.indent(root)
    return cast("bytes", ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")


# -- report.xml ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportAction:
    """One ``Action`` of a report: which SPUID it answers (from its ``Object``, else from
    its ``action_id``), its status, the accession NCBI assigned, and NCBI's messages."""

    action_id: str
    target_db: str
    status: ExportUploadState
    spuid: str | None
    accession: str | None
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    status: ExportUploadState
    submission_id: str | None
    actions: tuple[ReportAction, ...] = field(default_factory=tuple)

    def action_for(self, spuid: str, target_db: str) -> ReportAction | None:
        """The action answering ``spuid`` in ``target_db`` (NCBI lower-cases the SPUID in
        ``action_id``, so that comparison ignores case)."""
        for action in self.actions:
            if action.target_db.lower() != target_db.lower():
                continue
            if action.spuid is not None and action.spuid == spuid:
                return action
            if action.action_id.lower().endswith("-" + spuid.lower()):
                return action
        return None


class ReportError(ValueError):
    """``report.xml`` is not a report seqcore can read."""


def _messages(element: ET.Element) -> tuple[str, ...]:
    return tuple(" ".join((m.text or "").split()) for m in element.iter("Message")
                 if (m.text or "").strip())


def parse_report(data: bytes) -> Report:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise ReportError(f"report.xml is not well-formed XML: {err}") from err
    if root.tag != "SubmissionStatus" or not root.get("status"):
        raise ReportError("report.xml must be a <SubmissionStatus> with a status")
    actions = []
    for action in root.findall("Action"):
        objects = action.findall("Response/Object")
        accession = next((o.get("accession") for o in objects if o.get("accession")), None)
        spuid = next((o.get("spuid") for o in objects if o.get("spuid")), None)
        actions.append(ReportAction(
            action_id=action.get("action_id", ""), target_db=action.get("target_db", ""),
            status=ExportUploadState.from_report(action.get("status")), spuid=spuid,
            accession=accession, messages=_messages(action)))
    return Report(status=ExportUploadState.from_report(root.get("status")),
                  submission_id=root.get("submission_id"), actions=tuple(actions))


def latest_report(names: Iterable[str]) -> str | None:
    """Which file of a submission directory holds NCBI's latest answer: ``report.xml``, or,
    where only numbered ones are there, the highest ``report.<n>.xml`` (IRIDA reads those)."""
    best: tuple[int, str] | None = None
    for name in names:
        base = name.rsplit("/", 1)[-1]
        if base == "report.xml":
            return base
        parts = base.split(".")
        if len(parts) == 3 and parts[0] == "report" and parts[2] == "xml" and \
                parts[1].isascii() and parts[1].isdigit():
            number = int(parts[1])
            if best is None or number > best[0]:
                best = (number, base)
    return None if best is None else best[1]
