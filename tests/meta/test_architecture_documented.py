"""docs/architecture.md names every part of the package, and its package graph is the one the
code's imports draw (``python -m seqcore.framework.archdocs``)."""

import re
from pathlib import Path

import pytest

from seqcore.framework.archdocs import mermaid, packages

pytestmark = pytest.mark.database_independent

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_every_package_is_named():
    text = DOC.read_text()
    parts = {name.removeprefix("seqcore.") for name in packages()}
    named = {part for part in parts
             if re.search(rf"`{re.escape(part)}(/|\.py)?`", text)}
    assert parts - named == set(), "docs/architecture.md does not name these parts of seqcore"


def test_the_package_graph_is_generated_from_the_code():
    text = DOC.read_text()
    block = text.split("<!-- package graph -->\n", 1)[1].split("<!-- end package graph -->", 1)[0]
    assert block == mermaid(), ("the package graph differs from the code's imports: "
                                "regenerate it with python -m seqcore.framework.archdocs")
