"""What the packages declare and carry: licences, metadata, seqcore ranges, no test-only or
old-library pins at run time, and the build step that puts the browser assets into the wheel.

The wheels themselves are built, installed and served by ``.ci/installed``."""

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import build_web_assets
from seqcore import DISTRIBUTION, __version__
from seqcore.web import vendored

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = [ROOT, *sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))]
TEST_ONLY = {"pytest", "webtest", "mappy", "irida-sistr-results", "rauth", "playwright",
             "hypothesis", "ruff"}
# Pins that held the server back for one tool (sistr_cmd now has an environment of its own).
OLD_LIBRARY_CAPS = {"numpy", "pandas", "setuptools"}


def project(path):
    return tomllib.loads((path / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.name)
def test_metadata_is_complete(path):
    meta = project(path)
    assert meta["license"] in ("Apache-2.0", "Apache-2.0 AND GPL-3.0-or-later")
    assert "LICENSE" in meta["license-files"]
    assert (path / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert "Apache License" in (path / "LICENSE").read_text()
    classifiers = set(meta["classifiers"])
    assert "Topic :: Scientific/Engineering :: Bio-Informatics" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert meta["description"] and meta["requires-python"] == ">=3.11"
    assert meta["authors"]


@pytest.mark.parametrize("path", PROJECTS[1:], ids=lambda p: p.name)
def test_each_plugin_declares_the_seqcore_release_it_runs_on(path):
    requirements = {Requirement(r).name: Requirement(r) for r in project(path)["dependencies"]}
    for name, requirement in requirements.items():
        if name == "seqcore" or name.startswith("seqcore-"):
            assert name in OWN_NAMES, f"{name} is not one of the project's distributions"
            assert str(requirement.specifier), f"{name} without a version range"
            assert Version(__version__) in requirement.specifier, (name, __version__)
            assert Version("99.0") not in requirement.specifier
    assert DISTRIBUTION in requirements


EXAMPLES = sorted(p.parent for p in (ROOT / "examples").glob("*/pyproject.toml"))
# The name "seqcore" on the public package index belongs to another project: no distribution
# of this project is called that, and none requires it.
OWN_NAMES = {project(path)["name"] for path in PROJECTS}


def test_no_distribution_is_named_or_needs_the_index_s_other_seqcore():
    assert project(ROOT)["name"] == DISTRIBUTION == "seqcore-server"
    for path in PROJECTS[1:]:
        assert project(path)["name"] == f"seqcore-server-{path.name.removeprefix('seqcore-')}"
    for path in [*PROJECTS, *EXAMPLES]:
        meta = project(path)
        needed = [*meta.get("dependencies", []),
                  *(r for extra in meta.get("optional-dependencies", {}).values() for r in extra)]
        for line in needed:
            assert Requirement(line).name != "seqcore", f"{path.name} requires {line!r}"


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.name)
def test_no_test_only_package_or_old_library_cap_at_run_time(path):
    for line in project(path)["dependencies"]:
        requirement = Requirement(line)
        assert requirement.name.lower() not in TEST_ONLY, line
        if requirement.name.lower() in OLD_LIBRARY_CAPS:
            assert not any(spec.operator in ("<", "<=", "==")
                           for spec in requirement.specifier), line
        assert requirement.name.lower() != "sistr-cmd", "sistr_cmd runs in its own venv"


def test_notice_names_every_shipped_third_party_file():
    notice = (ROOT / "NOTICE").read_text()
    assert "GPL-3.0-or-later" in notice and "contaminant_list.txt" in notice
    assert (ROOT / "LICENSES" / "GPL-3.0-or-later.txt").read_text().startswith(
        "                    GNU GENERAL PUBLIC LICENSE\n                       Version 3")
    for name in [*vendored.ASSETS, *vendored.LICENCES]:
        assert name in notice, f"NOTICE does not list {name}"
    contaminants = (ROOT / "seqcore" / "qc" / "data" / "contaminant_list.txt").read_text()
    assert "GPL-3.0-or-later" in contaminants.split("\n\n")[0]


def test_build_step_copies_every_asset_and_licence(tmp_path):
    node_modules = ROOT / "node_modules"
    if not (node_modules / "graphiql").is_dir():
        pytest.fail("npm ci has not run (./dev does): node_modules is missing")
    copied = build_web_assets.copy_assets(tmp_path / "vendor", node_modules)
    assert copied == sorted([*vendored.ASSETS, *vendored.LICENCES])
    for name, asset in vendored.ASSETS.items():
        assert (tmp_path / "vendor" / name).read_bytes() == \
            (node_modules / asset.source).read_bytes()
    assert "MIT License" in (tmp_path / "vendor" / "graphiql.LICENSE").read_text()


def test_build_step_fails_naming_what_is_missing(tmp_path):
    partial = tmp_path / "node_modules"
    (partial / "graphiql").mkdir(parents=True)
    (partial / "graphiql" / "graphiql.min.js").write_text("//")
    with pytest.raises(build_web_assets.SetupError) as err:
        build_web_assets.copy_assets(tmp_path / "vendor", partial)
    message = str(err.value)
    assert "graphiql/graphiql.min.css" in message and "react/LICENSE" in message
    assert "graphiql/graphiql.min.js," not in message
    assert "npm ci" in message
    assert not (tmp_path / "vendor").exists()


def test_a_configured_node_modules_wins_and_unknown_names_are_not_served(tmp_path):
    (tmp_path / "graphiql").mkdir()
    (tmp_path / "graphiql" / "graphiql.min.css").write_text("body{}")
    assert vendored.asset_path("graphiql.min.css", tmp_path) == \
        tmp_path / "graphiql" / "graphiql.min.css"
    assert vendored.missing_assets(["graphiql.min.css", "graphiql.min.js"], tmp_path) == \
        ["graphiql.min.js"]
    assert vendored.asset_path("../../etc/passwd") is None
    assert vendored.asset_path("graphiql.LICENSE", tmp_path) is None
