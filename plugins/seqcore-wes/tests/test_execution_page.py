"""A workflow execution run on a real WES server, seen on its analysis page: the end of the
run's log (copied from the server), and the view of its ``iridanext.output.json.gz``: the
files with their downloads and the metadata it reports for the sample."""

from __future__ import annotations

import pytest

from seqcore.testing.uploads import fastq

TYPE = "seqcore-readcount-1.0.0"
LAUNCH = f"/api/analysisSubmissions/analysisType/{TYPE}"


@pytest.fixture
def world(factories, upload_reads):
    owner = factories.user(username="owner")
    headers = factories.headers(owner)
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    reads = upload_reads(sample, headers, files=[
        ("isolate_R1.fastq", fastq(reads=20, length=60, seed=1)),
        ("isolate_R2.fastq", fastq(reads=20, length=50, seed=2))])
    return {"owner": owner, "headers": headers, "sample": sample, "reads": reads}


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


def run(testapp, world, run_analysis, **parameters):
    res = testapp.post_json(LAUNCH, {"name": "count", "sequencingObjects": [world["reads"].id],
                                     "parameters": parameters}, headers=world["headers"],
                            status=201)
    return run_analysis.drive(int(res.json["resource"]["identifier"]), world["headers"],
                              timeout=180)


def test_the_page_shows_the_runs_log_files_and_metadata(testapp, world, run_analysis):
    done = run(testapp, world, run_analysis, label="batch-7")
    assert done.state == "COMPLETED", done.error
    sign_in(testapp, world["owner"])
    page = testapp.get(f"/-/analyses/{done.id}")
    assert "success" in page.html.select_one("pre#analysis-log").text  # cwltool's own words
    view = page.html.select_one('section.output-view[data-output="iridanext-output"]')
    puid = world["sample"].puid
    rows = {tr.find_all("td")[1].text: tr for tr in view.select("table.wes-files tbody tr")}
    assert set(rows) == {"summary.txt", f"{puid}.counts.txt"}
    counts = rows[f"{puid}.counts.txt"]
    assert counts.find("td").text == puid
    assert testapp.get(counts.find("a")["href"]).body == b"isolate-1\t40\t2200\n"
    metadata = {td["data-field"]: td.text for td in view.select("table.wes-metadata td")}
    assert metadata["readcount.reads"] == "40" and metadata["readcount.bases"] == "2200"


def test_a_failed_runs_log_is_on_its_page(testapp, world, run_analysis):
    failed = run(testapp, world, run_analysis, fail=True)
    assert failed.state == "ERROR"
    sign_in(testapp, world["owner"])
    log = testapp.get(f"/-/analyses/{failed.id}").html.select_one("pre#analysis-log").text
    assert "refusing to count: fail was set" in log
    assert "\x1b" not in log


def test_the_log_follows_a_running_run(testapp, app_config, world, run_analysis, db):
    import time

    from seqcore.plugin import AnalysisSubmission
    from seqcore.testing.workers import AnalysisWorker, run_until_state

    res = testapp.post_json(LAUNCH, {"name": "slow", "sequencingObjects": [world["reads"].id],
                                     "parameters": {"sleep": 8}}, headers=world["headers"],
                            status=201)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    run_until_state(worker, db, submission_id, {"RUNNING"}, timeout=120)
    sign_in(testapp, world["owner"])
    shown = ""
    deadline = time.monotonic() + 30
    while not shown and time.monotonic() < deadline:
        worker.run_once()  # a round asking after the running run copies its log
        page = testapp.get(f"/-/analyses/{submission_id}")
        log = page.html.select_one("turbo-frame#analysis-state pre#analysis-log")
        shown = log.text if log is not None else ""
        time.sleep(0.5)
    db.expire_all()
    assert db.get(AnalysisSubmission, submission_id).state == "RUNNING"
    assert shown  # the engine's first lines, while the run still runs
    frame = page.html.select_one("turbo-frame#analysis-state")
    assert frame["data-controller"] == "refresh"
    assert run_analysis.drive(submission_id, world["headers"], timeout=180).state == \
        "COMPLETED"
