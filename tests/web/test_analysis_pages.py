"""The analysis page: the end of the run's log (escaped, kept current with the state while
the job runs, shown only to whoever may read the analysis), and the launch form of a type's
parameters refusing with the words of the API's own check."""

import pytest

from seqcore.analysis.logs import TAIL_LINES, log_tail

from .test_workbench import sign_in


@pytest.fixture
def running(factories, tmp_path):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    obj = factories.sequencing_object(factories.sample(project))
    lines = [f"step {n}" for n in range(1, 101)]
    lines[-1] = "\x1b[31mfailed <script>alert(1)</script>\x1b[0m & more"
    (tmp_path / "pipeline.log").write_text("\n".join(lines) + "\n")
    submission = factories.submission(owner, [obj], state="RUNNING", projects=[project],
                                      work_dir=str(tmp_path))
    return owner, submission


def test_the_log_tail_is_the_last_lines_escaped_and_refreshed(testapp, running):
    owner, submission = running
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    frame = page.html.select_one("turbo-frame#analysis-state")
    assert frame["data-controller"] == "refresh"  # the log is inside the live frame
    log = frame.select_one("pre#analysis-log")
    shown = log.text.splitlines()
    assert len(shown) == TAIL_LINES
    assert shown[0] == f"step {101 - TAIL_LINES}"
    # Escaped and without the terminal's colour codes.
    assert shown[-1] == "failed <script>alert(1)</script> & more"
    assert "<script>alert(1)" not in page.text
    assert "earlier lines are left out" in frame.text


def test_a_stranger_sees_neither_the_page_nor_the_log(testapp, factories, running):
    _owner, submission = running
    sign_in(testapp, factories.user(username="stranger"))
    page = testapp.get(f"/-/analyses/{submission.id}", status=404)
    assert "step" not in page.text


def test_without_a_job_directory_there_is_no_log(testapp, factories):
    owner = factories.user(username="owner")
    obj = factories.sequencing_object(factories.sample(factories.project(owner=owner)))
    waiting = factories.submission(owner, [obj], state="NEW")
    done = factories.submission(owner, [obj], state="COMPLETED", work_dir="/nonexistent/job")
    sign_in(testapp, owner)
    assert testapp.get(f"/-/analyses/{waiting.id}").html.select_one(
        "#analysis-log-missing").text == "No log yet."
    assert testapp.get(f"/-/analyses/{done.id}").html.select_one(
        "#analysis-log-missing").text == "No log is kept for this analysis."


def test_the_log_tail_reads_only_the_end_of_a_large_log(tmp_path):
    class Job:
        work_dir = str(tmp_path)

    (tmp_path / "pipeline.log").write_bytes(b"x" * 200_000 + b"\nlast but one\nlast\n")
    tail = log_tail(Job(), lines=5)
    assert tail is not None and tail.truncated
    assert tail.lines == ("last but one", "last")  # the cut first line is dropped
    short = tmp_path / "short"
    short.mkdir()
    (short / "pipeline.log").write_text("one\ntwo\n")
    Job.work_dir = str(short)
    assert log_tail(Job()) == type(tail)(("one", "two"), False)


def speak_french(db, user):
    from seqcore.models.user import User

    db.get(User, user.id).locale = "fr"
    db.commit()


def test_the_french_page_names_the_log_in_french(testapp, db, running):
    owner, submission = running
    speak_french(db, owner)
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    assert page.html.select_one("#analysis-log-heading").text == "Journal"


def test_an_empty_log_says_so(testapp, factories, tmp_path):
    owner = factories.user(username="owner")
    obj = factories.sequencing_object(factories.sample(factories.project(owner=owner)))
    (tmp_path / "pipeline.log").write_text("")
    running = factories.submission(owner, [obj], state="RUNNING", work_dir=str(tmp_path))
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{running.id}")
    assert page.html.select_one("#analysis-log-missing").text == "The log is empty."
    assert not page.html.select_one("pre#analysis-log")


def test_the_state_history_shows_instants_as_dates(testapp, db, running):
    """The API keeps the history in epoch milliseconds; the page shows a date and time."""
    owner, submission = running
    submission.history = [["NEW", 1795954030000], ["RUNNING", 1795954031000]]
    db.merge(submission)
    db.commit()
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    times = [item.select_one("time") for item in page.html.select("ol li")
             if item.select_one("time")]
    assert [t.text for t in times[:2]] == ["2026-11-29 12:07:10 UTC", "2026-11-29 12:07:11 UTC"]
    assert times[0]["datetime"] == "2026-11-29T12:07:10+00:00"
    assert "1795954030000" not in page.text
