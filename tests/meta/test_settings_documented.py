"""Every setting the core or a first-party plugin declares is documented, and
``docs/settings.md`` is the page the declarations generate."""

import tomllib
from pathlib import Path

import pytest

from seqcore.framework.settingdocs import load, render

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "settings.md"
REGENERATE = ("python -m seqcore.framework.settingdocs assemblies assembly celery fast5 "
              "phylogenomics sequencefiles serotyper wes > docs/settings.md")


def first_party_plugins():
    """The entry-point names of the plugins in ``plugins/``."""
    names = []
    for project in sorted(ROOT.glob("plugins/*/pyproject.toml")):
        data = tomllib.loads(project.read_text())
        names.extend(data["project"].get("entry-points", {}).get("seqcore", {}))
    return sorted(names)


PLUGINS = first_party_plugins()
DECLARED = load(PLUGINS)


def test_the_regeneration_command_names_every_first_party_plugin():
    assert REGENERATE.split()[3:-2] == PLUGINS
    assert REGENERATE in DOC.read_text().replace("\n", " ")


def test_every_first_party_plugin_with_settings_is_loaded():
    owners = {declared.owner for declared in DECLARED}
    assert {"seqcore", "plugin assembly", "plugin celery"} <= owners


@pytest.mark.parametrize("declared", DECLARED, ids=lambda d: d.setting.name)
def test_setting_has_documentation(declared):
    assert len(declared.setting.doc.strip()) > 15, (
        f"{declared.owner} declares {declared.setting.name!r} without saying what it does")


@pytest.mark.parametrize("declared", DECLARED, ids=lambda d: d.setting.name)
def test_setting_is_in_the_reference(declared):
    assert f"| `{declared.setting.name}` |" in DOC.read_text(), (
        f"{declared.setting.name} is missing from docs/settings.md: {REGENERATE}")


def test_reference_is_current():
    assert DOC.read_text() == render(DECLARED), f"docs/settings.md is stale: {REGENERATE}"
