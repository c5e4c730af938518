"""The test kit works for strangers: the conftest, the fixtures and the contracts shown in
docs/testing_plugins.md, run as they stand against a small third-party analysis plugin in a
directory of its own, in a separate pytest; and the contracts fail when a plugin falls short.
"""

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import inspect, make_url, text
from sqlalchemy.exc import DBAPIError
from webtest import TestApp

from seqcore.analysis.registry import analysis_registry
from seqcore.config import configure
from seqcore.db import Base
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.analyses import AnalysisRunner, ReadsUploader
from seqcore.testing.contracts import AnalysisPluginContract
from seqcore.testing.database import URL_VARIABLE, empty_all_tables
from seqcore.testing.factories import Factories
from tests.plugins import longreads

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing_plugins.md"

PLUGIN = '''
from seqcore.plugin import AnalysisType, OutputRel, Parameter, hookimpl


@hookimpl
def register_analysis_types():
    # No inputs declared: the default input kind (paired-end pairs).
    return [AnalysisType(
        name="readlengths", label="Read lengths", workflow_id="readlengths-1",
        pipeline="lab_readlengths.pipeline:run",
        parameters=(Parameter("minimum", "int", 0, "Shorter reads are left out."),))]


@hookimpl
def register_output_rels():
    return [OutputRel("readlengths", "outputFile/lengths", "lengths", "lengths.tsv")]
'''

PIPELINE = '''
import collections
import gzip


def run(ctx):
    lengths = collections.Counter()
    for item in ctx.inputs:
        for path in item.files:
            with open(path, "rb") as fh:
                gzipped = fh.read(2) == b"\\x1f\\x8b"
            with (gzip.open(path, "rt") if gzipped else open(path)) as fh:
                for n, line in enumerate(fh):
                    length = len(line.rstrip("\\n"))
                    if n % 4 == 1 and length >= ctx.parameters["minimum"]:
                        lengths[length] += 1
    out = ctx.output_path("lengths.tsv")
    out.write_text("".join(f"{k}\\t{v}\\n" for k, v in sorted(lengths.items())))
    return {"lengths": out}
'''


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def doc_blocks():
    """The conftest (the page's first Python block), the run example and the contract."""
    blocks = python_blocks(DOC.read_text())
    conftest = blocks[0]
    run = next(b for b in blocks if "run_analysis(" in b and "def test_" in b)
    contract = next(b for b in blocks if "AnalysisPluginContract)" in b)
    swap = next(b for b in blocks if "class CountingEngine" in b)
    return conftest, run, contract, swap


def test_the_documented_conftest_runs_a_third_party_plugin(tmp_path):
    conftest, run_example, contract, swap = doc_blocks()
    assert "seqcore_plugins" in conftest and "lab_readlengths" in conftest
    package = tmp_path / "lab_readlengths"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(PLUGIN)
    (package / "pipeline.py").write_text(PIPELINE)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(conftest)
    (tests / "test_lengths.py").write_text(run_example + "\n\n" + contract)
    (tests / "test_swap.py").write_text(swap)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = str(tmp_path)
    base = os.environ.get(URL_VARIABLE)
    if base:  # a database of its own: the kit recreates the one it is named after
        url = make_url(base)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        env[URL_VARIABLE] = url.set(database=f"{url.database}_{worker}_kit").render_as_string(
            hide_password=False)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-W", "ignore::DeprecationWarning", str(tests)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    # Every contract test and the example ran; none was skipped.
    summary = output.strip().splitlines()[-1]
    assert re.search(r"\b9 passed\b", summary) and "skipped" not in summary, output


# -- the contracts fail when a plugin falls short ----------------------------------------------


@pytest.fixture
def kit(seqcore_settings, database_url, engine):
    """The fixtures a contract takes, over an app with the given plugins."""

    def build(plugins):
        config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                            "seqcore.engine": engine}, plugins=plugins)
        app = config.make_wsgi_app()
        testapp = TestApp(app, extra_environ={"HTTP_HOST": "localhost"})
        kinds = {k.name: k for k in config.registry.get("seqcore.file_kinds", {}).values()}
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings(), kinds)
        return {"app": app, "testapp": testapp, "factories": factories,
                "upload_reads": ReadsUploader(testapp, config.registry),
                "run_analysis": AnalysisRunner(testapp, config.registry)}

    return build


class LengthsContract(AnalysisPluginContract):
    analysis_type = "lengths"
    output_rels = {"outputFile/lengths"}


def test_the_analysis_contract_passes_a_working_pipeline(kit):
    fixtures = kit([longreads])
    LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)
    LengthsContract().test_pipeline_imports(fixtures["app"])


def test_the_analysis_contract_fails_a_pipeline_that_does_not_import(kit):
    fixtures = kit([longreads])
    types = analysis_registry(fixtures["app"].registry).types
    types["lengths"] = replace(types["lengths"], pipeline="tests.plugins.nowhere:run")
    with pytest.raises(pytest.fail.Exception, match="does not import"):
        LengthsContract().test_pipeline_imports(fixtures["app"])


def test_the_analysis_contract_fails_a_run_without_declared_outputs(kit):
    fixtures = kit([longreads])
    types = analysis_registry(fixtures["app"].registry).types
    types["lengths"] = replace(types["lengths"],
                               pipeline="tests.plugins.longreads:measure_nothing")
    with pytest.raises(AssertionError, match="none of its declared outputs"):
        LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)


def test_the_analysis_contract_fails_a_failing_run(kit):
    fixtures = kit([longreads])
    types = analysis_registry(fixtures["app"].registry).types
    types["lengths"] = replace(types["lengths"], pipeline="tests.plugins.longreads:fail")
    with pytest.raises(AssertionError, match=r"ended ERROR: .*no lengths today"):
        LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)


def counted_back(ctx):
    for sample_id in ctx.samples():
        ctx.metadata(sample_id, {"lengths": ctx.output_path("lengths").read_text()[:20]})


def objects_assumed(ctx):
    for sample in ctx.samples():  # the mistake of issue 38: ids taken for Sample objects
        ctx.metadata(sample.id, {"lengths": "?"})


def writing_back(fixtures, write_back, writes_back=True):
    types = analysis_registry(fixtures["app"].registry).types
    types["lengths"] = replace(types["lengths"], writes_back=writes_back,
                               write_back=write_back)


def test_the_analysis_contract_checks_a_declared_write_back(kit):
    fixtures = kit([longreads])
    writing_back(fixtures, counted_back)
    LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)

    class Named(LengthsContract):
        written_metadata = {"lengths", "N50"}

    with pytest.raises(AssertionError, match=r"lacks the metadata \['N50'\]"):
        Named().test_pipeline_runs_on_sample_data(**fixtures)


def test_the_analysis_contract_fails_a_write_back_that_raises(kit):
    fixtures = kit([longreads])
    writing_back(fixtures, objects_assumed)
    with pytest.raises(AssertionError, match=r"Could not complete: AttributeError.*"
                                             r"ctx.samples\(\) returns sample ids"):
        LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)


def test_the_analysis_contract_fails_a_write_back_that_writes_nothing(kit):
    fixtures = kit([longreads])
    writing_back(fixtures, lambda ctx: None)
    with pytest.raises(AssertionError, match="left no metadata"):
        LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)
    writing_back(fixtures, None)
    with pytest.raises(AssertionError, match="declares writes_back=True but no write_back"):
        LengthsContract().test_pipeline_runs_on_sample_data(**fixtures)


def test_the_doc_lists_every_kit_fixture():
    import seqcore.testing

    text = DOC.read_text()
    missing = [name for name in seqcore.testing.__all__ if f"| `{name}`" not in text
               and f"`{name}`, " not in text and f", `{name}`" not in text]
    assert not missing, f"fixtures missing from docs/testing_plugins.md: {missing}"


def test_blocks_are_dedented_python():
    for block in doc_blocks():
        compile(textwrap.dedent(block), "<doc>", "exec")


def test_emptying_leaves_no_row_restarts_the_ids_and_keeps_the_guards(testapp, factories,
                                                                         engine):
    """What the ``engine`` fixture does after every test, on SQLite or PostgreSQL: every
    table of the models empty (the audit trail and the revocation generation, which
    triggers write, too), ids from 1 again, and the trail's append-only guards still in
    place."""
    owner = factories.user()
    factories.access_token(owner)
    headers = factories.headers(owner)
    testapp.post_json("/api/projects", {"name": "Emptied 1"}, headers=headers, status=201)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM activity")).scalar() > 0
    empty_all_tables(engine)
    existing = set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            if table.name in existing:
                assert conn.execute(text(f'SELECT count(*) FROM "{table.name}"')).scalar() \
                    == 0, table.name
    again = factories.user()
    assert again.id == 1
    testapp.post_json("/api/projects", {"name": "Emptied 2"},
                      headers=factories.headers(again), status=201)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT min(id) FROM project")).scalar() == 1
        with pytest.raises(DBAPIError, match="append-only"):
            conn.execute(text("DELETE FROM activity"))
