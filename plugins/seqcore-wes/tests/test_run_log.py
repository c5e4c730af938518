"""The WES run's log is copied into the job directory as the job's log while the run runs and
when it ends, so the analysis page's log tail shows it; a queued run has none yet."""

from seqcore.plugin import JOB_LOG
from seqcore_wes.executor import WesExecutor


class Client:
    def __init__(self, states, log):
        self.states = list(states)
        self.log = log
        self.asked = 0

    def status(self, run_id):
        return self.states.pop(0)

    def run_log(self, run_id):
        self.asked += 1
        return self.log


def executor(client):
    wes = WesExecutor.__new__(WesExecutor)
    wes.client = client
    wes.unreachable = 600.0
    return wes


def test_the_run_log_is_the_jobs_log_while_running_and_after(tmp_path):
    log = {"run_log": {"stdout": "\x1b[1mstarting\x1b[0m\n", "stderr": "step 1\nstep 2\n"},
           "task_logs": [{"name": "count", "exit_code": 1, "stderr": "boom"},
                         {"name": "fine", "exit_code": 0, "stderr": "quiet"}]}
    client = Client(["QUEUED", "RUNNING", "EXECUTOR_ERROR"], log)
    wes = executor(client)
    assert wes.poll("run-1", tmp_path).state == "queued"
    assert client.asked == 0 and not (tmp_path / JOB_LOG).exists()
    assert wes.poll("run-1", tmp_path).state == "running"
    assert (tmp_path / JOB_LOG).read_text() == "starting\nstep 1\nstep 2\ntask count: boom\n"
    log["run_log"]["stderr"] += "step 3\n"
    done = wes.poll("run-1", tmp_path)
    assert done.state == "done" and done.result["status"] == "error"
    assert "step 3" in (tmp_path / JOB_LOG).read_text()


def test_a_log_that_cannot_be_read_leaves_the_run_running(tmp_path):
    from seqcore_wes.client import WesError, WesUnavailable

    class Failing(Client):
        def __init__(self, error):
            super().__init__(["RUNNING"], {})
            self.error = error

        def run_log(self, run_id):
            raise self.error

    for error in (WesUnavailable("down"), WesError("broken", 500)):
        assert executor(Failing(error)).poll("run-1", tmp_path).state == "running"
    assert not (tmp_path / JOB_LOG).exists()
