"""The benchmarks run from an install of seqcore with its ``bench`` extra and the first-party
plugins: every package a script of bench/ imports (or a helper it loads from a plugin's tests,
or the test kit, which is a pytest plugin) is declared there.

An undeclared import works on a developer's machine, where the test extras are installed,
and fails on a clean install (``bench/api.py --mix`` once needed pytest and psycopg that
nothing declared). tests/e2e/test_benches.py runs the benchmarks; this checks what they need
is declared, without running them.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports anywhere (functions included), by their full names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def declared_requirements() -> list[Requirement]:
    """What installing seqcore with its ``bench`` extra and the first-party plugins asks for,
    read from this checkout's pyproject.toml files (an installed copy's metadata may be older):
    the core's dependencies and the extra's, each plugin's dependencies."""
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = [*core["dependencies"], *core["optional-dependencies"]["bench"]]
    for project in sorted(ROOT.glob("plugins/*/pyproject.toml")):
        texts += tomllib.loads(project.read_text())["project"].get("dependencies", [])
    return [Requirement(text) for text in texts]


def installed_with(name: str, extras: frozenset[str] = frozenset(),
                   seen: set[str] | None = None) -> set[str]:
    """``name`` and every distribution installing it with ``extras`` brings (canonical
    names)."""
    seen = set() if seen is None else seen
    key = canonical(name)
    if key in seen:
        return seen
    seen.add(key)
    try:
        wanted = requires(name) or []
    except PackageNotFoundError:
        return seen
    for text in wanted:
        requirement = Requirement(text)
        environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
        if requirement.marker is None or any(requirement.marker.evaluate(env)
                                             for env in environments):
            installed_with(requirement.name, frozenset(requirement.extras), seen)
    return seen


def test_every_package_the_benchmarks_import_is_declared():
    helpers = {path.stem: path for path in ROOT.glob("plugins/*/tests/*.py")}
    modules: set[str] = set()
    files = [path for path in sorted((ROOT / "bench").glob("*.py"))]
    while files:
        path = files.pop()
        for module in imported(path):
            top = module.split(".")[0]
            if top in helpers and helpers[top] not in files:
                files.append(helpers.pop(top))  # a plugin's test helper the bench loads
            if module == "seqcore.testing" or module.startswith("seqcore.testing."):
                modules.add("pytest")  # the test kit is a pytest plugin
            modules.add(top)
    third_party = {m for m in modules if m not in sys.stdlib_module_names
                   and m not in ("bench", "seqcore") and not m.startswith("seqcore_")
                   and m not in helpers and m not in {p.stem for p in
                                                      ROOT.glob("plugins/*/tests/*.py")}}
    declared: set[str] = set()
    for requirement in declared_requirements():
        installed_with(requirement.name, frozenset(requirement.extras), declared)
    distributions = packages_distributions()
    undeclared = {}
    for module in sorted(third_party):
        owners = {canonical(d) for d in distributions.get(module, [])}
        assert owners, f"bench/ imports {module}, which no installed distribution provides"
        if not owners & declared:
            undeclared[module] = sorted(owners)
    assert not undeclared, (
        f"bench/ imports packages the bench extra does not declare: {undeclared} "
        "(pyproject.toml, [project.optional-dependencies] bench)")
    # The extra carries what the benchmarks use beyond the core and the plugins.
    assert {"pytest", "webtest", "psycopg"} <= declared
