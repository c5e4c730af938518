"""Every code block of ``docs/writing_plugins.md`` and ``docs/testing_plugins.md`` is run or
checked here (or, for the test kit's own examples, in ``test_testing_kit.py``): a block no
test knows fails :func:`test_every_block_is_run`, so a new example comes with its test."""

import re
import subprocess
import sys
import textwrap
import tomllib
import types
from pathlib import Path

import pytest
from webtest import TestApp

import seqcore_sequencefiles.plugin as sequencefiles
from seqcore.config import configure
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.factories import Factories

ROOT = Path(__file__).resolve().parents[2]
WRITING = ROOT / "docs" / "writing_plugins.md"
TESTING = ROOT / "docs" / "testing_plugins.md"
READSTATS = ROOT / "examples" / "seqcore-readstats" / "src" / "seqcore_readstats"


def blocks(page):
    """``(language, dedented text)`` of every fenced block of ``page``."""
    return [(m.group(2), textwrap.dedent(m.group(3))) for m in re.finditer(
        r"^( *)```(\w*)\n(.*?)^\1```", page.read_text(), re.S | re.M)]


def block(page, marker):
    (found,) = [text for _, text in blocks(page) if marker in text]
    return found


# The marker naming each block, and where it runs.
RUN_HERE = {
    WRITING: ["seqcore plugin new mlst-lite", '[project]\nname = "seqcore-readstats"',
              "import AnalysisType, OutputRel, Parameter, WriteBack, hookimpl\n",
              "pip install -e ./seqcore-readstats", "class ProjectNotes(Context)",
              'name="mlst", label="MLST typing"', "def histograms_context(view: ViewInput)",
              '<%namespace name="tables" file="/table.mako"/>',
              "pybabel extract -k _ -k translate -F babel.cfg"],
    TESTING: ["class TestFast5Contract(FileKindContract)", "SEQCORE_FUZZ_EXAMPLES="],
}
RUN_IN_TEST_TESTING_KIT = ["def seqcore_plugins():", "def test_lengths_of_uploaded_reads",
                           "class TestReadLengthsContract", "class CountingEngine"]
# Run by tests/e2e/test_shared_live_servers.py, which starts the server it describes.
RUN_IN_TEST_SHARED_SERVERS = ["def prepare(server):"]


@pytest.mark.parametrize("page", [WRITING, TESTING], ids=lambda p: p.name)
def test_every_block_is_run(page):
    markers = RUN_HERE[page] + (RUN_IN_TEST_TESTING_KIT + RUN_IN_TEST_SHARED_SERVERS
                                if page == TESTING else [])
    unrun = [text[:60] for _, text in blocks(page)
             if sum(marker in text for marker in markers) != 1]
    assert not unrun, f"blocks of {page.name} no test runs (or runs twice): {unrun}"


def module(source, name):
    plugin = types.ModuleType(name)
    exec(compile(source, name, "exec"), plugin.__dict__)
    return plugin


@pytest.fixture
def build(seqcore_settings, database_url, engine):
    def build(plugins):
        config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                            "seqcore.engine": engine}, plugins=plugins)
        testapp = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings(), {})
        return testapp, factories

    return build


def test_the_notes_plugin_starts_and_answers(build):
    notes = module(block(WRITING, "class ProjectNotes(Context)"), "notes_example")
    testapp, factories = build([notes])
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    links = testapp.get(f"/api/projects/{project.id}", headers=headers).json["resource"]["links"]
    href = {link["rel"]: link["href"] for link in links}["project/notes"]
    assert href.endswith(f"/api/projects/{project.id}/notes")
    listed = testapp.get(href, headers=headers).json["resource"]
    assert listed["resources"] == []
    testapp.get(href, headers=factories.headers(factories.user()), status=404)


def test_the_mlst_declaration_starts_and_is_listed(build, monkeypatch):
    # The pipeline the declaration names ("seqcore_mlst.pipeline:run") lives in its package.
    package, pipeline = types.ModuleType("seqcore_mlst"), types.ModuleType("pipeline")
    pipeline.run = lambda ctx: {}
    monkeypatch.setitem(sys.modules, "seqcore_mlst", package)
    monkeypatch.setitem(sys.modules, "seqcore_mlst.pipeline", pipeline)
    mlst = module(block(WRITING, 'name="mlst", label="MLST typing"'), "mlst_example")
    testapp, factories = build([mlst, sequencefiles])
    headers = factories.headers(factories.user())
    types_ = testapp.get("/api/analysisTypes", headers=headers).json["resource"]["resources"]
    (listed,) = [t for t in types_ if t["name"] == "mlst"]
    assert {o["rel"] for o in listed["outputs"]} == {"outputFile/mlst-profile"}
    assert mlst.register_analysis_types()[0].write_back is mlst.write_back


def test_the_import_line_and_the_pyproject_are_the_examples():
    exec(block(WRITING, "import AnalysisType, OutputRel, Parameter, WriteBack, hookimpl\n"), {})
    shown = tomllib.loads(block(WRITING, '[project]\nname = "seqcore-readstats"'))
    real = tomllib.loads((ROOT / "examples" / "seqcore-readstats" / "pyproject.toml")
                         .read_text())
    assert shown["project"]["name"] == real["project"]["name"]
    assert shown["project"]["dependencies"] == real["project"]["dependencies"]
    assert shown["project"]["entry-points"] == real["project"]["entry-points"]


def test_the_install_steps_are_what_the_wheel_check_runs():
    """The steps (install, test, migrate) are the ones ``.ci/wheels`` runs with the example,
    on every build; here each command is checked to be the one that script runs."""
    steps = block(WRITING, "pip install -e ./seqcore-readstats")
    script = (ROOT / ".ci" / "wheels").read_text()
    assert "pip install pytest WebTest Babel" in steps and "pytest WebTest Babel" in script
    assert "seqcore -c production.ini db upgrade" in steps and "db upgrade" in script
    assert (ROOT / "examples" / "seqcore-readstats" / "tests").is_dir()


def test_plugin_new_writes_the_project_the_page_names(tmp_path):
    command = block(WRITING, "seqcore plugin new mlst-lite").splitlines()[0].split("#")[0]
    done = subprocess.run([sys.executable, "-m", "seqcore.cli", *command.split()[1:]],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "seqcore-mlst-lite" / "src" / "seqcore_mlst_lite" / "plugin.py").is_file()


def test_the_fast5_contract_block_passes_against_the_fast5_plugin(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture(scope='session')\ndef seqcore_plugins():\n"
        "    import seqcore_fast5.plugin\n\n    return [seqcore_fast5.plugin]\n")
    (tests / "test_fast5_doc.py").write_text(block(TESTING, "class TestFast5Contract"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-W", "ignore::DeprecationWarning", str(tests)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=kit_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout and "skipped" not in done.stdout.splitlines()[-1]


def kit_env():
    import os

    return {key: value for key, value in os.environ.items()
            if not key.startswith(("PYTEST_", "COV_", "SEQCORE_TEST_DATABASE_URL"))}


def test_the_fuzz_command_names_what_the_fuzz_tests_read():
    """The long fuzzing run of the page (an hour) is not run here; its variables and marker
    are the ones the fuzz suite reads, which runs on every build with its defaults."""
    command = block(TESTING, "SEQCORE_FUZZ_EXAMPLES=")
    suite = (ROOT / "tests" / "fuzz" / "test_fuzz.py").read_text()
    for variable in re.findall(r"(SEQCORE_FUZZ_\w+)=", command):
        assert variable in suite, variable
    assert "-m fuzz" in command and "fuzz" in (ROOT / "pyproject.toml").read_text()


def test_the_views_example_is_the_example_plugins_code():
    """The "Contributing views" blocks are the readstats example's own view module and
    template, whose tests (``examples/seqcore-readstats/tests/test_views.py``) start it and
    draw its page in both languages: the page cannot drift from code that runs."""
    assert block(WRITING, "def histograms_context(view: ViewInput)") == \
        (READSTATS / "views.py").read_text()
    assert block(WRITING, '<%namespace name="tables" file="/table.mako"/>') == \
        (READSTATS / "templates" / "readstats" / "histograms.mako").read_text()


def test_the_translation_commands_extract_and_compile_the_examples_messages(tmp_path):
    """The "Translating a view" commands, run in a copy of the example's package: the
    extraction finds the view's and the template's messages, the compilation writes the
    catalogues seqcore loads."""
    import shutil

    package = tmp_path / "src" / "seqcore_readstats"
    shutil.copytree(READSTATS, package)
    pybabel = str(Path(sys.executable).with_name("pybabel"))
    commands = [line.split("#")[0].split() for line in
                block(WRITING, "pybabel extract -k _ -k translate -F babel.cfg").splitlines()
                if line.startswith("pybabel") and " init " not in line]
    assert [command[1] for command in commands] == ["extract", "compile"]
    for command in commands:
        subprocess.run([pybabel, *command[1:]], cwd=package, check=True, capture_output=True)
    extracted = (package / "readstats.pot").read_text()
    assert 'msgid "Read lengths"' in extracted  # the template's
    assert 'msgid "Mean read length"' in extracted  # the view module's
    assert (package / "locale" / "fr" / "LC_MESSAGES" / "readstats.mo").stat().st_size > 0

