"""The analysis framework with a small real analysis (tests/plugins/readcount.py): launch,
the state machine, outputs, errors, parameters, sharing, write-back, automation, recovery."""

import json
import os
import platform
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from seqcore import hookimpl
from seqcore.analysis.readiness import clean_version, tool_state
from seqcore.analysis.readiness import clear_cache as clear_readiness_cache
from seqcore.analysis.worker import AnalysisWorker
from seqcore.framework.contrib import Tool
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry
from seqcore.models.user import SystemRole
from seqcore.qc.processing import Worker
from seqcore.testing.server import start_worker
from seqcore.testing.uploads import fastq, multipart

LAUNCH = "/api/analysisSubmissions/analysisType/readcount"
FULL_PATH = ["NEW", "PREPARING", "PREPARED", "SUBMITTING", "RUNNING", "FINISHED_RUNNING",
             "COMPLETING"]


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER)])
    sample = factories.sample(project, name="isolate-1")
    pair = factories.sequencing_object(sample, "pairs", files=[
        ("s_R1.fastq", fastq(reads=30, length=50, seed=1)),
        ("s_R2.fastq", fastq(reads=30, length=70, seed=2))])
    return {"owner": owner, "member": member, "project": project, "sample": sample,
            "pair": pair, "headers": factories.headers(owner)}


def launch(testapp, headers, status=201, **body):
    return testapp.post_json(LAUNCH, body, headers=headers, status=status)


def run(app_config):
    AnalysisWorker(app_config.registry).run_until_idle(timeout=120)


def links(body):
    return {link["rel"]: link["href"] for link in body["links"]}


def test_launch_run_and_serve_outputs(testapp, app_config, world, db):
    res = launch(testapp, world["headers"], name="counts of isolate-1",
                 sequencingObjects=[world["pair"].id], parameters={"min_length": 60},
                 projects=[world["project"].id])
    body = res.json["resource"]
    assert res.headers["Location"] == links(body)["self"]
    assert body["analysisState"] == "NEW"
    assert body["inputParameters"] == {"min_length": "60", "fail": "false", "sleep": "0.0"}
    assert body["workflowId"] == "readcount-1" and body["analysisCleanedState"] == "NOT_CLEANED"
    assert "analysis" not in links(body)
    url = links(body)["self"].replace("http://localhost", "")
    testapp.get(url + "/analysis", headers=world["headers"], status=404)

    run(app_config)
    body = testapp.get(url, headers=world["headers"]).json["resource"]
    assert body["analysisState"] == "COMPLETED"
    assert [h["state"] for h in body["stateHistory"]] == [*FULL_PATH, "COMPLETED"]
    assert body["remoteWorkflowId"].startswith("local:")
    assert body["remoteInputDataId"]
    analysis = testapp.get(links(body)["analysis"], headers=world["headers"]).json["resource"]
    assert analysis["analysisType"] == {"type": "READCOUNT"}
    outputs = links(analysis)
    counts = testapp.get(outputs["outputFile/counts"],
                         headers={**world["headers"], "Accept": "text/plain"}).text
    # Only the 70 bp reverse reads pass min_length 60.
    assert counts.splitlines() == ["sample\tfile\treads\tbases",
                                   "isolate-1\ts_R1.fastq\t0\t0",
                                   "isolate-1\ts_R2.fastq\t30\t2100"]
    meta = testapp.get(outputs["outputFile/summary"], headers=world["headers"]).json["resource"]
    assert meta["label"] == "summary.json" and meta["executionManagerFileId"] == "summary"
    # JSON outputs come as content with text/plain (application/json is the record).
    summary = testapp.get(outputs["outputFile/summary"],
                          headers={**world["headers"], "Accept": "text/plain"})
    assert json.loads(summary.body)["samples"][str(world["sample"].id)]["reads"] == 30
    # The inputs are served in the pair format, with their sample.
    pairs = testapp.get(links(body)["input/paired"], headers=world["headers"]).json
    (pair,) = pairs["resource"]["resources"]
    assert pair["identifier"] == str(world["pair"].id)
    assert "sample" in links(pair)
    unpaired = testapp.get(links(body)["input/unpaired"], headers=world["headers"]).json
    assert unpaired["resource"]["resources"] == []


def test_pipelines_receive_their_declared_settings(testapp, world, seqcore_settings,
                                                   seqcore_plugins, database_url, engine):
    """A pipeline runs in another process (or machine): the settings its type names travel
    with the job."""
    from seqcore.config import configure

    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine,
                        "seqcore.readcount.sample_header": "isolate"}, plugins=seqcore_plugins)
    config.commit()
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    AnalysisWorker(config.registry).run_until_idle(timeout=120)
    url = links(body["resource"])["self"].replace("http://localhost", "")
    analysis = testapp.get(url + "/analysis", headers=world["headers"]).json["resource"]
    counts = testapp.get(links(analysis)["outputFile/counts"],
                         headers={**world["headers"], "Accept": "text/plain"}).text
    assert counts.splitlines()[0] == "isolate\tfile\treads\tbases"


def test_jobs_get_the_tool_environments_directory_absolute(testapp, app_config, world, db):
    """A job runs in its work directory: the default, relative seqcore.tools.path must reach
    it resolved from the worker's directory, or ensure_tool_environment(env, ctx.settings)
    would build a tool's virtualenv anew inside every job."""
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    AnalysisWorker(app_config.registry).run_until_idle(timeout=120)
    submission = db.get(AnalysisSubmission, int(body["resource"]["identifier"]))
    job = json.loads((Path(submission.work_dir) / "job.json").read_text())
    assert app_config.get_settings()["seqcore.tools.path"] == "var/tools"
    assert job["settings"]["seqcore.tools.path"] == str(Path("var/tools").absolute())


def test_a_misspelt_setting_fails_at_start_up(seqcore_settings, database_url, engine):
    from dataclasses import replace

    from pyramid.exceptions import ConfigurationError

    from seqcore.config import configure
    from tests.plugins import readcount

    class Plugin:
        @staticmethod
        @hookimpl
        def register_analysis_types():
            return [replace(readcount.READCOUNT, name="typo",
                            settings=("seqcore.readcount.sample_heading",))]

    with pytest.raises(ConfigurationError, match="sample_heading"):
        configure({**seqcore_settings, "sqlalchemy.url": database_url,
                   "seqcore.engine": engine}, plugins=[Plugin]).commit()


class _Dedicated:
    """An executor for one analysis type: runs jobs like the local executor, and remembers
    which it was handed, as a site's dedicated cluster would be chosen for one pipeline."""

    submitted: list = []

    @staticmethod
    @hookimpl
    def register_executors():
        from seqcore.analysis.executors import LocalExecutor
        from seqcore.framework.contrib import Executor

        class Recording(LocalExecutor):
            def submit(self, work_dir):
                _Dedicated.submitted.append(Path(work_dir).name)
                return super().submit(work_dir)

        return [Executor("dedicated", Recording)]

    @staticmethod
    @hookimpl
    def select_executor(analysis_type, settings):
        return "dedicated" if analysis_type.name == "readcount" else None


def test_a_plugin_selects_the_executor_of_a_type(testapp, world, seqcore_settings,
                                                 seqcore_plugins, database_url, engine, db):
    from seqcore.config import configure

    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine}, plugins=[*seqcore_plugins, _Dedicated])
    config.commit()
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    AnalysisWorker(config.registry).run_until_idle(timeout=120)
    submission = db.get(AnalysisSubmission, int(body["resource"]["identifier"]))
    assert submission.state == "COMPLETED"
    assert submission.executor == "dedicated"
    assert _Dedicated.submitted == [Path(submission.work_dir).name]


def test_submissions_are_immutable(testapp, world):
    url = links(launch(testapp, world["headers"],
                       sequencingObjects=[world["pair"].id]).json["resource"])["self"]
    testapp.patch_json(url, {"name": "renamed"}, headers=world["headers"], status=405)
    # DELETE is no edit: it removes the submission (tests/functional/test_submission_deletion.py).
    testapp.put_json(url, {"name": "renamed"}, headers=world["headers"], status=405)


def test_pipeline_error_gives_error_with_reason(testapp, app_config, world):
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id],
                  parameters={"fail": True}).json["resource"]
    run(app_config)
    body = testapp.get(links(body)["self"], headers=world["headers"]).json["resource"]
    assert body["analysisState"] == "ERROR"
    assert body["analysisError"] == "asked to fail"
    assert "analysis" not in links(body)
    testapp.get(links(body)["self"] + "/analysis", headers=world["headers"], status=404)


@pytest.mark.parametrize(("body", "field"), [
    ({"parameters": {"min_length": "abc"}}, "parameters.min_length"),
    ({"parameters": {"min_length": -1}}, "parameters.min_length"),
    ({"parameters": {"sleep": 1000}}, "parameters.sleep"),
    ({"parameters": {"fail": "maybe"}}, "parameters.fail"),
    ({"parameters": {"colour": "red"}}, "parameters.colour"),
    ({"parameters": "min_length=3"}, "parameters"),
    ({"sequencingObjects": [999999]}, "sequencingObjects"),
    ({"sequencingObjects": "1"}, "sequencingObjects"),
    ({"samples": [999999]}, "samples"),
    ({"projects": [999999]}, "projects"),
    ({"priority": "URGENT"}, "priority"),
    ({"writeResultsToSamples": "yes"}, "writeResultsToSamples"),
])
def test_bad_launches_are_refused(testapp, world, db, body, field):
    body = {"sequencingObjects": [world["pair"].id], **body}
    res = launch(testapp, world["headers"], status=400, **body)
    assert field in res.json, res.json
    assert db.query(AnalysisSubmission).count() == 0


def test_all_problems_at_once_and_unknown_fields(testapp, world):
    res = launch(testapp, world["headers"], status=400, sequencingObjects=[999999],
                 parameters={"min_length": "x", "colour": 1})
    assert set(res.json) == {"sequencingObjects", "parameters.min_length", "parameters.colour"}
    res = launch(testapp, world["headers"], status=400, inputs=[1])
    assert "acceptable-properties" in res.json


def test_types_aliases_and_readiness(testapp, world):
    headers = world["headers"]
    collection = testapp.get("/api/analysisSubmissions", headers=headers).json["resource"]
    rels = links(collection)
    assert {"analysisSubmissions/readcount", "analysisSubmissions/countreads",
            "analysisSubmissions/needs-tool", "analysisTypes"} <= set(rels)
    testapp.get("/api/analysisSubmissions/analysisType/nothing", headers=headers, status=404)
    launch(testapp, headers, sequencingObjects=[world["pair"].id])
    by_alias = testapp.get("/api/analysisSubmissions/analysisType/countreads", headers=headers)
    assert len(by_alias.json["resource"]["resources"]) == 1
    types = {t["name"]: t for t in testapp.get("/api/analysisTypes", headers=headers).json[
        "resource"]["resources"]}
    assert types["readcount"]["ready"] is True
    by_alias = testapp.get("/api/analysisTypes/countreads", headers=headers).json["resource"]
    assert by_alias["name"] == "readcount" and by_alias["aliases"] == ["countreads"]
    testapp.get("/api/analysisTypes/nothing", headers=headers, status=404)
    assert types["readcount"]["parameters"][0] == {
        "name": "min_length", "type": "int", "default": 0,
        "description": "Only count reads at least this long.", "minimum": 0, "maximum": None,
        "choices": None, "required": False}
    assert {o["rel"] for o in types["readcount"]["outputs"]} == {"outputFile/counts",
                                                                 "outputFile/summary"}
    tool = {t["name"]: t for t in types["needs-tool"]["tools"]}
    assert types["needs-tool"]["ready"] is False
    assert tool["Frobnicator"]["install"] == "apt-get install frobnicator"
    assert tool["Python"]["version"] == platform.python_version()  # not "Python 3.11.7"
    assert tool["Python"]["ready"] is True and tool["Python"]["problem"] is None
    # A requirement that is not a program (a database) says why it is not there.
    assert tool["Count database"]["ready"] is False
    assert tool["Count database"]["problem"] == "no database at /nowhere/counts.db"
    res = testapp.post_json("/api/analysisSubmissions/analysisType/needs-tool",
                            {"sequencingObjects": [world["pair"].id]}, headers=headers,
                            status=409)
    assert "apt-get install frobnicator" in res.json["message"]
    assert ("Count database: no database at /nowhere/counts.db; seqcore-fetch-counts"
            in res.json["message"])
    # An optional tool that is missing is reported but leaves the type ready.
    (turbo,) = types["readcount"]["tools"]
    assert (turbo["optional"], turbo["ready"], turbo["path"]) == (True, False, None)


def test_who_sees_a_submission(testapp, factories, world):
    private = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    shared = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id],
                    projects=[world["project"].id]).json
    private_url = links(private["resource"])["self"]
    shared_url = links(shared["resource"])["self"]
    member = factories.headers(world["member"])
    testapp.get(shared_url, headers=member)
    testapp.get(private_url, headers=member, status=404)
    stranger = factories.headers(factories.user())
    testapp.get(shared_url, headers=stranger, status=404)
    admin = factories.headers(factories.user(role=SystemRole.ADMIN))
    testapp.get(private_url, headers=admin)
    # Listings: one's own; the project's shared ones.
    assert testapp.get("/api/analysisSubmissions", headers=member).json["resource"][
        "resources"] == []
    assert len(testapp.get("/api/analysisSubmissions", headers=admin).json["resource"][
        "resources"]) == 2
    project = world["project"].id
    shared_list = testapp.get(f"/api/projects/{project}/analyses", headers=member).json
    (entry,) = shared_list["resource"]["resources"]
    assert [link["rel"] for link in entry["links"]] == ["self"]
    typed = testapp.get(f"/api/projects/{project}/analyses/readcount", headers=member).json
    assert len(typed["resource"]["resources"]) == 1
    testapp.get(f"/api/projects/{project}/analyses/nothing", headers=member, status=404)


def test_launching_on_unreadable_samples_is_refused(testapp, factories, world):
    stranger = factories.headers(factories.user())
    res = launch(testapp, stranger, status=400, sequencingObjects=[world["pair"].id])
    assert "No such sequencing object" in res.json["sequencingObjects"][0]


def test_write_back_with_provenance(testapp, app_config, factories, world, db):
    res = launch(testapp, factories.headers(world["member"]), status=403,
                 samples=[world["sample"].id], writeResultsToSamples=True)
    assert "permission" in res.json["message"]
    body = launch(testapp, world["headers"], samples=[world["sample"].id],
                  writeResultsToSamples=True).json["resource"]
    run(app_config)
    done = testapp.get(links(body)["self"], headers=world["headers"]).json["resource"]
    assert [h["state"] for h in done["stateHistory"]] == [
        *FULL_PATH, "TRANSFERRED", "POST_PROCESSING", "COMPLETED"]
    metadata = testapp.get(f"/api/samples/{world['sample'].id}/metadata",
                           headers=world["headers"]).json["resource"]["metadata"]
    assert metadata["read count"] == {"value": "60", "type": "text"}
    assert metadata["base count"] == {"value": str(30 * 50 + 30 * 70), "type": "text"}
    entry = db.query(MetadataEntry).filter_by(field="read count").one()
    assert entry.submission_id == int(body["identifier"])


def test_capacity_and_priority(testapp, app_config, world):
    low = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id],
                 priority="LOW").json["resource"]
    high = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id],
                  priority="HIGH").json["resource"]
    worker = AnalysisWorker(app_config.registry)
    worker.capacity = 1
    worker.schedule()

    def state(body):
        return testapp.get(links(body)["self"], headers=world["headers"]).json["resource"][
            "analysisState"]

    assert state(high) == "RUNNING" and state(low) == "NEW"
    worker.run_until_idle(timeout=60)
    assert state(low) == state(high) == "COMPLETED"


def test_automated_analysis_on_upload(testapp, app_config, world, db):
    project = world["project"].id
    headers = world["headers"]
    res = testapp.put_json(f"/api/projects/{project}/automatedAnalyses",
                           {"analysisTypes": [{"type": "readcount",
                                               "parameters": {"min_length": 10}}]},
                           headers=headers)
    assert res.json["resource"]["analysisTypes"] == [
        {"type": "readcount", "parameters": {"min_length": "10", "fail": "false",
                                             "sleep": "0.0"}}]
    testapp.put_json(f"/api/projects/{project}/automatedAnalyses",
                     {"analysisTypes": ["nothing"]}, headers=headers, status=400)
    body, content_type = multipart([("file1", "a_R1.fastq", fastq(seed=5), None),
                                    ("file2", "a_R2.fastq", fastq(seed=6), None)])
    testapp.post(f"/api/samples/{world['sample'].id}/pairs", body,
                 headers={**headers, "Content-Type": content_type})
    Worker(app_config.registry).run_until_idle()
    submission = db.query(AnalysisSubmission).one()
    assert submission.automated and submission.update_samples
    assert submission.name == "Read count - isolate-1"
    run(app_config)
    shared = testapp.get(f"/api/projects/{project}/analyses/readcount", headers=headers).json
    assert shared["resource"]["resources"][0]["analysisState"] == "COMPLETED"
    metadata = testapp.get(f"/api/samples/{world['sample'].id}/metadata",
                           headers=headers).json["resource"]["metadata"]
    assert metadata["read count"]["value"] == "40"


def test_cleanup_of_work_directories(testapp, app_config, build_app, world, db):
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    worker = AnalysisWorker(app_config.registry)
    worker.run_until_idle(timeout=60)
    submission = db.get(AnalysisSubmission, int(body["resource"]["identifier"]))
    assert Path(submission.work_dir).is_dir()
    worker.settings = {**worker.settings, "seqcore.analysis.cleanup_days": "0"}
    worker.cleanup()
    db.expire_all()
    submission = db.get(AnalysisSubmission, submission.id)
    assert submission.cleaned_state == "CLEANED"
    assert not Path(submission.work_dir).exists()
    # Outputs stay downloadable after cleaning.
    url = links(body["resource"])["self"]
    analysis = testapp.get(url + "/analysis", headers=world["headers"]).json["resource"]
    testapp.get(links(analysis)["outputFile/counts"],
                headers={**world["headers"], "Accept": "text/plain"})


# -- a worker killed mid-run ------------------------------------------------------------------


def _wait(db, submission_id, states, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        db.expire_all()
        submission = db.get(AnalysisSubmission, submission_id)
        if submission.state in states:
            return submission
        time.sleep(0.2)
    raise AssertionError(f"submission stuck in {submission.state}")


@pytest.mark.parametrize("also_kill_the_job", [False, True])
def test_worker_killed_mid_run(testapp, app_config, world, db, database_url, tmp_path,
                               also_kill_the_job):
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id],
                  parameters={"sleep": 3}).json["resource"]
    submission_id = int(body["identifier"])
    options = {"seqcore.plugins.enabled": "sequencefiles",
               "seqcore.plugins.modules": "tests.plugins.readcount",
               "seqcore.processing.lease_seconds": "2"}
    settings = {**app_config.get_settings(), "sqlalchemy.url": database_url}
    first = start_worker(tmp_path, settings, **options)
    try:
        running = _wait(db, submission_id, {"RUNNING"})
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    if also_kill_the_job:
        os.killpg(int(running.remote_workflow_id.split(":")[1]), signal.SIGKILL)
    second = start_worker(tmp_path, settings, **options)
    try:
        done = _wait(db, submission_id, {"COMPLETED", "ERROR"})
    finally:
        second.terminate()
        second.wait(timeout=30)
    assert done.state == "COMPLETED", done.error
    assert done.attempts == (1 if also_kill_the_job else 0)
    states = [state for state, _ in done.history]
    assert states[-1] == "COMPLETED" and states.count("RUNNING") == (2 if also_kill_the_job
                                                                      else 1)


# What tools print when asked for their version (Debian 12's builds, copied from their
# output), and the number readiness reports.
TOOL_OUTPUTS = [
    ("\nProgram: bwa (alignment via Burrows-Wheeler transformation)\nVersion: 0.7.17-r1188\n"
     "Contact: Heng Li <lh3@sanger.ac.uk>\n\nUsage:   bwa <command> [options]\n",
     "0.7.17-r1188"),
    ("\n\n. This is PhyML version 3.3.3:3.3.20220408-3.\n\n", "3.3.20220408"),
    ("nucmer \nNUCmer (NUCleotide MUMmer) version 3.1\n    \n", "3.1"),
    ("2.24-r1122\n", "2.24-r1122"),
    ("1.16.1+htslib-1.16\n", "1.16.1"),
    ("\n              SMALT - Sequence Mapping and Alignment Tool\nVersion: 0.7.6\n"
     "Date:    21-03-2014\n", "0.7.6"),
    ("bcftools 1.16\nUsing htslib 1.16\nCopyright (C) 2022 Genome Research Ltd.\n", "1.16"),
    ("version:  v1.3.6\n", "1.3.6"),
    ("Detailed usage for FastTree 2.1.11 Double precision (No SSE3):\n", "2.1.11"),
    ("FLASH v1.2.11\nCopyright (C) 2012 Tanja Magoc\nLicense GPLv3+; GNU GPL version 3 or "
     "later <http://gnu.org/licenses/gpl.html>.\n", "1.2.11"),
    ("SPAdes genome assembler v3.15.5\n", "3.15.5"),
    ("MEGAHIT v1.2.9\n", "1.2.9"),
    ("blastn: 2.12.0+\n Package: blast 2.12.0, build Feb 17 2022 10:04:48\n", "2.12.0"),
    ("v7.505 (2022/Apr/10)\n", "7.505"),
    ("2.3\n", "2.3"),
    ("Python 3.11.7\n", "3.11.7"),
    ("sistr_cmd 1.1.3; DB downloaded on 2024-01-01\n", "1.1.3"),
    ("prokka 1.14.6\n", "1.14.6"),
    ("7\n", "7"),
    ("\nUSAGE: show-coords  [options]  <deltafile>\n\n-b  Merges overlapping alignments\n"
     "-c  Include percent coverage\n  -I float  Set minimum percent identity to display\n"
     "  -L long   Set minimum alignment length to display\n", None),
    ("", None),
]


@pytest.mark.parametrize(("output", "version"), TOOL_OUTPUTS)
def test_readiness_reads_a_clean_version_number(output, version):
    assert clean_version(output) == version


def test_readiness_probes_the_installed_tools_for_their_numbers():
    """The probe runs the real programs: PhyML's Debian wrapper (MPI, refused as root
    unless told), bwa (the version only in its usage text), nucmer."""
    clear_readiness_cache()
    found = {}
    for command, args in (("bwa", ()), ("phyml", ("--version",)),
                          ("nucmer", ("--version",))):
        if shutil.which(command) is None:
            pytest.skip(f"{command} is not installed")
        found[command] = tool_state(Tool(command, command, args)).version
    assert all(re.fullmatch(r"\d+(\.\d+)+(-r\d+)?", v or "") for v in found.values()), found
    assert found["nucmer"] == "3.1" and found["bwa"].startswith("0.7.")


def test_a_tool_installed_after_start_up_is_seen_without_a_restart(testapp, world, tmp_path,
                                                                   monkeypatch):
    """Readiness looks on PATH at every look: a launch refused for a missing tool succeeds
    once the tool is there, and one removed again is missing again."""
    headers = world["headers"]

    def frobnicator():
        types = testapp.get("/api/analysisTypes/needs-tool", headers=headers).json["resource"]
        return {t["name"]: t for t in types["tools"]}["Frobnicator"]

    assert frobnicator()["ready"] is False
    res = testapp.post_json("/api/analysisSubmissions/analysisType/needs-tool",
                            {"sequencingObjects": [world["pair"].id]}, headers=headers,
                            status=409)
    assert "Frobnicator (frobnicate-not-installed)" in res.json["message"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "frobnicate-not-installed"
    program.write_text("#!/bin/sh\necho 'frobnicate version 2.5.1'\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    state = frobnicator()
    assert (state["ready"], state["path"], state["version"]) == (True, str(program), "2.5.1")
    res = testapp.post_json("/api/analysisSubmissions/analysisType/needs-tool",
                            {"sequencingObjects": [world["pair"].id]}, headers=headers,
                            status=409)
    assert "Frobnicator" not in res.json["message"]  # only the database is missing now
    # An upgrade in place (a new modification time) is asked for its version again.
    program.write_text("#!/bin/sh\necho 'frobnicate version 2.6.0'\n")
    os.utime(program, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert frobnicator()["version"] == "2.6.0"
    program.unlink()
    assert frobnicator()["ready"] is False


def test_a_finished_job_waiting_for_collection_is_not_taken_for_interrupted(
        testapp, app_config, world, db, caplog):
    """Two workers: one sees the job finish (FINISHED_RUNNING, no lease), the other's
    recovery round must leave it to be collected, not log it as interrupted and redo it."""
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    submission_id = int(body["resource"]["identifier"])
    first, second = AnalysisWorker(app_config.registry), AnalysisWorker(app_config.registry)
    first.schedule()
    deadline = time.monotonic() + 60
    while True:
        ready: list[int] = []
        sub = db.get(AnalysisSubmission, submission_id)
        db.refresh(sub)
        first._poll(sub.id, sub.executor, sub.remote_workflow_id, sub.work_dir, ready)
        if ready:
            break
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.1)
    db.refresh(sub)
    assert sub.state == "FINISHED_RUNNING" and sub.lease_until is None
    with caplog.at_level("WARNING", logger="seqcore.analysis.worker"):
        assert second.recover() == 0
    assert "interrupted" not in caplog.text
    second.run_until_idle(timeout=60)
    db.refresh(sub)
    assert (sub.state, sub.attempts) == ("COMPLETED", 0)
    assert [state for state, _ in sub.history].count("FINISHED_RUNNING") == 1


def test_outputs_are_fetched_by_key_as_well_as_by_number(testapp, app_config, factories,
                                                         world):
    body = launch(testapp, world["headers"], sequencingObjects=[world["pair"].id]).json
    url = links(body["resource"])["self"].replace("http://localhost", "")
    run(app_config)
    analysis = testapp.get(url + "/analysis", headers=world["headers"]).json["resource"]
    text = {**world["headers"], "Accept": "text/plain"}
    by_number = testapp.get(links(analysis)["outputFile/counts"], headers=text)
    by_key = testapp.get(url + "/analysis/file/counts", headers=text)
    assert by_key.body == by_number.body and by_key.text.startswith("sample\tfile\treads")
    record = testapp.get(url + "/analysis/file/summary", headers=world["headers"]).json
    assert record["resource"]["executionManagerFileId"] == "summary"
    testapp.get(url + "/analysis/file/nothing", headers=world["headers"], status=404)
    testapp.get(url + "/analysis/file/%C2%B2", headers=world["headers"], status=404)
    stranger = factories.headers(factories.user(username="stranger"))
    testapp.get(url + "/analysis/file/counts", headers=stranger, status=404)
