"""The public plugin API (``seqcore.plugin``) is documented, complete and enforced.

The reference page lists exactly the exported names; the ruff rule that keeps plugins on the
public API bans every other module of the package; and the first-party plugins that have
moved to the API import nothing else from seqcore.
"""

from __future__ import annotations

import dataclasses
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import seqcore
from bench.plugin_imports import figures
from seqcore import plugin, plugindocs

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "plugin_api.md"
RUFF = Path(sys.executable).with_name("ruff")


def page_names() -> list[str]:
    """The names the page documents: each entry is a list item ``- `name`: ...``."""
    return re.findall(r"^- `([A-Za-z_][A-Za-z0-9_]*)`:", PAGE.read_text(), re.MULTILINE)


def test_every_export_is_on_the_page():
    missing = sorted(set(plugin.__all__) - set(page_names()))
    assert not missing, f"exported but not in docs/plugin_api.md: {missing}"


def test_the_page_names_nothing_that_is_not_exported():
    extra = sorted(set(page_names()) - set(plugin.__all__))
    assert not extra, f"docs/plugin_api.md documents names seqcore.plugin lacks: {extra}"


def test_each_name_is_documented_once():
    names = page_names()
    assert sorted(names) == sorted(set(names))


def test_the_page_is_generated_from_the_reference():
    assert PAGE.read_text() == plugindocs.render(), (
        "regenerate with: python -m seqcore.plugindocs > docs/plugin_api.md")


@pytest.mark.parametrize("name", plugindocs.DECLARATIONS)
def test_every_field_of_a_declaration_is_on_the_page_with_its_meaning(name):
    cls = getattr(plugin, name)
    rows = plugindocs.field_docs(cls)
    assert [row[0] for row in rows] == [f.name for f in dataclasses.fields(cls)]
    undocumented = [field for field, _, _, meaning in rows if len(meaning) < 10]
    assert not undocumented, (f"{name}: document these fields (a :param in the class "
                              f"docstring or a #: comment above the field): {undocumented}")
    section = PAGE.read_text().split(f"### `{name}`\n", 1)[1].split("\n### ", 1)[0]
    for field, type_text, _, _ in rows:
        assert f"| `{field}` | `{type_text}` |" in section.replace("\\|", "|"), field


def test_the_page_shows_no_core_path_of_a_public_name():
    paths = re.findall(r"`seqcore\.[\w.]+\.(\w+)`", PAGE.read_text())
    assert not set(paths) & set(plugin.__all__), sorted(set(paths) & set(plugin.__all__))


def test_all_lists_exactly_the_public_names():
    exported = set(plugin.__all__)
    assert len(plugin.__all__) == len(exported)
    for name in exported:
        assert hasattr(plugin, name), name
    public = {name for name, value in vars(plugin).items()
              if not name.startswith("_") and not isinstance(value, type(sys))
              and getattr(value, "__module__", "seqcore") != "__future__"}
    public -= {"annotations", "Any", "Callable", "Iterable", "Mapping", "Path",
               "TYPE_CHECKING"}
    assert public == exported


def banned(config: Path) -> set[str]:
    lint = tomllib.loads(config.read_text())["lint"]
    return set(lint["flake8-tidy-imports"]["banned-api"])


def internal_names() -> set[str]:
    """Every module of the package but the public two, and what ``seqcore`` itself defines."""
    modules = {f"seqcore.{info.name}" for info in pkgutil.iter_modules(seqcore.__path__)}
    modules -= {"seqcore.plugin", "seqcore.testing"}
    own = {f"seqcore.{name}" for name in ("hookimpl", "hookspec", "__version__")}
    return modules | own


@pytest.mark.parametrize("config", ["plugins/ruff.toml", "examples/ruff.toml"])
def test_the_ban_covers_every_internal_module(config):
    assert banned(ROOT / config) == internal_names()


@pytest.mark.parametrize("statement", [
    "from seqcore.rest.views.files import download",
    "from seqcore import hookimpl",
    "import seqcore.framework.contrib",
])
def test_ruff_refuses_an_internal_import_in_a_plugin(statement):
    source = f"{statement}\n\nprint(locals())\n"
    for where in ("plugins/seqcore-fast5/src/seqcore_fast5/probe.py",
                  "examples/seqcore-readstats/tests/probe.py"):
        run = subprocess.run([str(RUFF), "check", "--no-cache", "--stdin-filename", where, "-"],
                             input=source, capture_output=True, text=True, cwd=ROOT)
        assert run.returncode == 1 and "TID251" in run.stdout, (where, run.stdout)


def test_ruff_accepts_the_public_api():
    source = ("from seqcore.plugin import hookimpl\n"
              "from seqcore.testing.uploads import fastq\n\nprint(hookimpl, fastq)\n")
    run = subprocess.run([str(RUFF), "check", "--no-cache", "--stdin-filename",
                          "plugins/seqcore-fast5/src/seqcore_fast5/probe.py", "-"],
                         input=source, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout


def test_plugins_on_the_api_import_one_core_module():
    for name, modules in figures(ROOT).items():
        # A kind's declaration may build its sample data with the test kit, when a test asks.
        internal = {m for m in modules if m != "seqcore.testing"
                    and not m.startswith("seqcore.testing.")}
        assert internal == {"seqcore.plugin"}, (name, sorted(modules))
