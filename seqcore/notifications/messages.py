"""A notification's subject and body, from the text template of its kind.

Each template is ``templates/<kind>.txt``: Mako, its first line ``Subject: ...``, the body
after a blank line. Values are given to the template as they are (plain text mail: nothing
is escaped).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from mako.template import Template

TEMPLATES = Path(__file__).parent / "templates"


@cache
def _template(kind: str) -> Template:
    return Template(filename=str(TEMPLATES / f"{kind}.txt"), strict_undefined=True)


def compose(kind: str, **values: Any) -> tuple[str, str]:
    """The subject and the body of a ``kind`` message with ``values``."""
    text = str(_template(kind).render(**values))
    head, _, body = text.partition("\n\n")
    if not head.startswith("Subject: "):
        raise ValueError(f"templates/{kind}.txt must start with a 'Subject: ' line")
    return head[len("Subject: "):].strip(), body.strip() + "\n"
