"""The element tree of NCBI's Submission Portal ``submission.xml``, written down from NCBI's
documentation (``submission.xsd`` and, inside it, ``biosample.xsd`` version 2.0) for the
parts seqcore writes, and a checker.

Only what a BioSample + SRA submission uses is described: ``Description`` (``Comment``,
``Organization`` with ``Name`` and ``Contact``, ``Hold``), ``Action/AddData`` (a
``BioSample`` in ``Data/XmlContent``, with its ``Identifier``) and ``Action/AddFiles`` (the
``File`` s, ``Attribute`` s, ``AttributeRefId`` s and ``Identifier``). Element order,
cardinality, required attributes and their allowed values are checked as the schema states
them; nothing is fetched. The worker checks every document it writes before uploading it,
and the tests check it independently of the writer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.etree.ElementTree import Element

UNBOUNDED = 10**9
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Attr:
    """An attribute: required or not, and its allowed values (any when empty) or pattern."""

    name: str
    required: bool = True
    values: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Node:
    """An element: its attributes, then either text (``text``: must it be non-empty?) or a
    sequence of children ``(node, min, max)`` in schema order; ``choice`` makes the
    children alternatives (exactly one of them, within its bounds)."""

    name: str
    attrs: tuple[Attr, ...] = ()
    children: tuple[tuple[Node, int, int], ...] = ()
    text: bool = False
    choice: bool = False
    other_attrs: bool = False  # xsi:*, schema_version and the like are tolerated


def leaf(name: str, *attrs: Attr) -> Node:
    return Node(name, attrs, text=True)


SPUID = Node("SPUID", (Attr("spuid_namespace"),), text=True)
PRIMARY_ID = Node("PrimaryId", (Attr("db", required=False),), text=True)
REF_ID = Node("RefId", children=((PRIMARY_ID, 0, 1), (SPUID, 0, 1)), choice=True)
IDENTIFIER = Node("Identifier", children=((PRIMARY_ID, 0, 1), (SPUID, 0, 1)), choice=True)

CONTACT = Node("Contact", (Attr("email"),), children=(
    (Node("Name", children=((leaf("First"), 0, 1), (leaf("Middle"), 0, 1),
                            (leaf("Last"), 1, 1))), 1, 1),))
ORGANIZATION = Node("Organization", (
    Attr("type", values=("institute", "center", "consortium", "lab")),
    Attr("role", values=("owner", "participant")),
    Attr("org_id", required=False),
), children=((leaf("Name"), 1, 1), (CONTACT, 0, UNBOUNDED)))
DESCRIPTION = Node("Description", children=(
    (leaf("Title"), 0, 1),
    (leaf("Comment"), 0, 1),
    (ORGANIZATION, 1, UNBOUNDED),
    (Node("Hold", (Attr("release_date", pattern=DATE),)), 0, 1),
))

BIOSAMPLE = Node("BioSample", (Attr("schema_version", values=("2.0",)),), children=(
    (Node("SampleId", children=((SPUID, 1, 1),)), 1, 1),
    (Node("Descriptor", children=((leaf("Title"), 0, 1), (leaf("Description"), 0, 1))), 0, 1),
    (Node("Organism", children=((leaf("OrganismName"), 1, 1),)), 1, 1),
    (Node("BioProject", children=((PRIMARY_ID, 1, 1),)), 0, UNBOUNDED),
    (leaf("Package"), 1, 1),
    (Node("Attributes", children=((leaf("Attribute", Attr("attribute_name")), 1, UNBOUNDED),)),
     1, 1),
))
ADD_DATA = Node("AddData", (Attr("target_db", values=("BioSample",)),), children=(
    (Node("Data", (Attr("content_type", values=("xml", "XML")),), children=(
        (Node("XmlContent", children=((BIOSAMPLE, 1, 1),)), 1, 1),)), 1, 1),
    (IDENTIFIER, 1, 1),
))
ADD_FILES = Node("AddFiles", (Attr("target_db", values=("SRA",)),), children=(
    (Node("File", (Attr("file_path"),), children=((leaf("DataType"), 1, 1),)), 1, UNBOUNDED),
    (leaf("Attribute", Attr("name")), 0, UNBOUNDED),
    (Node("AttributeRefId", (Attr("name"),), children=((REF_ID, 1, 1),)), 0, UNBOUNDED),
    (IDENTIFIER, 1, 1),
))
ACTION = Node("Action", children=((ADD_DATA, 0, 1), (ADD_FILES, 0, 1)), choice=True)
SUBMISSION = Node("Submission", children=((DESCRIPTION, 1, 1), (ACTION, 1, UNBOUNDED)),
                  other_attrs=True)

# The SRA attributes a run must carry, and the layouts NCBI knows.
SRA_ATTRIBUTES = ("instrument_model", "library_name", "library_strategy", "library_source",
                  "library_selection", "library_layout")


def _path(parent: str, element: Element, index: int) -> str:
    return f"{parent}/{element.tag}[{index + 1}]"


def _check(node: Node, element: Element, where: str, problems: list[str]) -> None:
    if element.tag != node.name:
        problems.append(f"{where}: expected <{node.name}>, found <{element.tag}>")
        return
    known = {attr.name for attr in node.attrs}
    for attr in node.attrs:
        value = element.get(attr.name)
        if value is None:
            if attr.required:
                problems.append(f"{where}: attribute {attr.name!r} is required")
            continue
        if attr.values and value not in attr.values:
            problems.append(f"{where}: attribute {attr.name}={value!r} is not one of "
                            f"{', '.join(attr.values)}")
        if attr.pattern is not None and not attr.pattern.fullmatch(value):
            problems.append(f"{where}: attribute {attr.name}={value!r} is malformed")
    if not node.other_attrs:
        for name in element.attrib:
            if name not in known:
                problems.append(f"{where}: attribute {name!r} is not allowed here")
    children = list(element)
    if node.text:
        if children:
            problems.append(f"{where}: <{node.name}> holds text only")
        if not (element.text or "").strip():
            problems.append(f"{where}: <{node.name}> must not be empty")
        return
    if (element.text or "").strip():
        problems.append(f"{where}: <{node.name}> holds elements, not text")
    if node.choice:
        names = {child.name: (child, low, high) for child, low, high in node.children}
        tags = {child.tag for child in children}
        if len(tags) != 1 or not children:
            problems.append(f"{where}: <{node.name}> must hold exactly one of "
                            f"{', '.join('<' + n + '>' for n in names)}")
        for index, child in enumerate(children):
            allowed = names.get(child.tag)
            if allowed is None:
                problems.append(f"{_path(where, child, index)}: not allowed in "
                                f"<{node.name}>")
                continue
            if len(children) > allowed[2]:
                problems.append(f"{where}: at most {allowed[2]} <{child.tag}>")
            _check(allowed[0], child, _path(where, child, index), problems)
        return
    position = 0
    for spec, low, high in node.children:
        count = 0
        while position < len(children) and children[position].tag == spec.name and count < high:
            _check(spec, children[position], _path(where, children[position], position),
                   problems)
            position += 1
            count += 1
        if count < low:
            problems.append(f"{where}: <{node.name}> needs at least {low} <{spec.name}> "
                            f"(found {count} in its place)")
    for index in range(position, len(children)):
        problems.append(f"{_path(where, children[index], index)}: <{children[index].tag}> "
                        f"is not allowed here in <{node.name}>")


def check_submission(root: Element) -> list[str]:
    """Every way ``root`` departs from the documented ``submission.xml`` tree (empty: none),
    plus the SRA attributes each ``AddFiles`` must carry."""
    problems: list[str] = []
    _check(SUBMISSION, root, "/Submission", problems)
    for index, add_files in enumerate(root.iter("AddFiles")):
        names = [attribute.get("name") for attribute in add_files.findall("Attribute")]
        for required in SRA_ATTRIBUTES:
            if required not in names:
                problems.append(f"AddFiles {index + 1}: SRA attribute {required!r} is missing")
        refs = {ref.get("name") for ref in add_files.findall("AttributeRefId")}
        for required in ("BioProject", "BioSample"):
            if required not in refs:
                problems.append(f"AddFiles {index + 1}: AttributeRefId {required!r} is missing")
        layout = [a.text for a in add_files.findall("Attribute") if a.get("name") ==
                  "library_layout"]
        files = len(add_files.findall("File"))
        if layout and layout[0] == "PAIRED" and files != 2:
            problems.append(f"AddFiles {index + 1}: a PAIRED run sends 2 files, not {files}")
    return problems
