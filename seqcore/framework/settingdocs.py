"""Render ``docs/settings.md`` from the setting declarations.

``python -m seqcore.framework.settingdocs NAME ... > docs/settings.md`` documents the core's
settings and those of the named installed plugins (entry-point names; the first-party ones in the
source tree); a meta-test fails while the page and the declarations disagree, or while a declaration
has no documentation.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from seqcore.framework.plugins import build_plugin_manager
from seqcore.framework.settings import Declared, declarations, env_name, type_name

INTRO = """# Settings

Every setting is declared once, with its type, default and documentation: the core's in
`seqcore/framework/settings.py`, a plugin's by its `register_settings`
hook (`seqcore.framework.contrib.Setting`). When the application starts, each value is taken from
its environment variable, else the ini file's `[app:main]`, else the default; it is parsed once and
code reads the typed value from `registry.settings`. Keep secrets in the environment.

A value that does not parse, or a required setting left empty, stops the start-up with an
error naming the setting, the value and where it came from, for example
`setting 'seqcore.max_body_bytes': bad value 'lots' from environment variable
SEQCORE_MAX_BODY_BYTES (expected int: invalid literal for int() with base 10: 'lots')`.

This page is generated (`python -m seqcore.framework.settingdocs assemblies assembly celery fast5
phylogenomics sequencefiles serotyper wes > docs/settings.md`);
`tests/meta/test_settings_documented.py` fails when it is out of date or a setting has no
documentation.
"""


def load(plugin_names: Sequence[str]) -> list[Declared]:
    """The declarations of the core and of the named installed (entry-point) plugins."""
    if not plugin_names:
        return declarations(build_plugin_manager({}, plugins=[]))
    pm = build_plugin_manager({"seqcore.plugins.enabled": " ".join(plugin_names)})
    return declarations(pm)


def _cell(value: Any) -> str:
    if value is None or value == "":
        return "empty"
    if isinstance(value, bool):  # as the ini file spells it
        return "`true`" if value else "`false`"
    return f"`{value}`"


def _row(declared: Declared) -> str:
    setting = declared.setting
    doc = " ".join(setting.doc.split()).replace("|", "\\|")
    required = "yes" if setting.required else ""
    return (f"| `{setting.name}` | `{env_name(setting.name)}` | {type_name(setting)} | "
            f"{_cell(setting.default)} | {required} | {doc} |")


def render(declared: Iterable[Declared]) -> str:
    """The Markdown page: one table per owner, the core first, settings in order."""
    by_owner: dict[str, list[Declared]] = {}
    for item in declared:
        by_owner.setdefault(item.owner, []).append(item)
    owners = sorted(by_owner, key=lambda owner: (owner != "seqcore", owner))
    parts = [INTRO]
    for owner in owners:
        title = "The core" if owner == "seqcore" else owner[:1].upper() + owner[1:]
        parts.append(f"## {title}\n")
        parts.append("| setting | environment variable | type | default | required | "
                     "meaning |\n|---|---|---|---|---|---|")
        parts.append("\n".join(_row(item) for item in by_owner[owner]) + "\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(load(sys.argv[1:])), end="")
