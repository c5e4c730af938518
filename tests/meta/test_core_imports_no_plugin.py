"""The core never imports a plugin: everything kind- or pipeline-specific reaches it through
the plugins' declarations, so seqcore runs with no plugin at all and a third party's plugin
is no second-class citizen.

Every ``import``/``from ... import`` in ``seqcore/`` (at module level or inside a function)
and every ``importlib.import_module``/``__import__`` of a literal name is checked against the
plugin packages: any top-level ``seqcore_*`` name, and the top-level packages of every
distribution registered under the ``seqcore`` entry-point group.
"""

from __future__ import annotations

import ast
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import seqcore
from seqcore.framework.plugins import ENTRY_POINT_GROUP

pytestmark = pytest.mark.database_independent

CORE = Path(seqcore.__file__).resolve().parent


def plugin_packages() -> set[str]:
    """Top-level import names of the installed plugin distributions."""
    names: set[str] = set()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        names.add(ep.value.split(":")[0].split(".")[0])
        dist = ep.dist
        if dist is None:
            continue
        top_level = dist.read_text("top_level.txt")
        if top_level:
            names.update(line.strip() for line in top_level.splitlines() if line.strip())
        for path in dist.files or ():
            parts = Path(str(path)).parts
            if len(parts) > 1 and parts[-1] == "__init__.py" and ".." not in parts:
                names.add(parts[0])
    names.discard("seqcore")  # the core itself, should it ever register an entry point
    return names


def is_plugin(module: str, packages: set[str]) -> bool:
    top = module.split(".")[0]
    return top.startswith("seqcore_") or top in packages


def imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` for every import the module makes, wherever it stands."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant) \
                    and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def plugin_imports(root: Path, packages: set[str]) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for line, module in imported_names(tree):
            if is_plugin(module, packages):
                problems.append(f"{path.relative_to(root.parent)}:{line} imports {module}")
    return problems


def test_core_imports_no_plugin() -> None:
    problems = plugin_imports(CORE, plugin_packages())
    assert not problems, "the core imports plugins:\n" + "\n".join(problems)


def test_the_check_sees_imports_anywhere(tmp_path: Path) -> None:
    """Module level, inside a function, ``from`` imports and ``import_module`` all count."""
    package = tmp_path / "seqcore"
    package.mkdir()
    (package / "a.py").write_text("import seqcore_sequencefiles.plugin\n")
    (package / "b.py").write_text("def f():\n    from seqcore_fast5.models import X\n")
    (package / "c.py").write_text("import importlib\n"
                                  "importlib.import_module('thirdparty_kind.plugin')\n")
    (package / "d.py").write_text("from seqcore.framework.contrib import FileKind\nimport os\n")
    problems = plugin_imports(package, {"thirdparty_kind"})
    assert problems == ["seqcore/a.py:1 imports seqcore_sequencefiles.plugin",
                        "seqcore/b.py:2 imports seqcore_fast5.models",
                        "seqcore/c.py:2 imports thirdparty_kind.plugin"]


def test_installed_plugins_are_known() -> None:
    """The entry-point group is read: the first-party plugins installed here are found."""
    packages = plugin_packages()
    assert {"seqcore_sequencefiles", "seqcore_fast5"} <= packages
