"""The lease heartbeat the processing and NCBI workers hold while they work."""

import logging
import threading
import time
from datetime import timedelta

import pytest

from seqcore.qc.processing import heartbeat

# xdist_group("serial"): under pytest-xdist (--dist loadgroup) these run on one worker, one
# after the other, never beside another test of the group: the beats are counted against
# wall-clock sleeps of a few tenths of a second, which a load test on the same cores would
# stretch.
pytestmark = [pytest.mark.xdist_group("serial"), pytest.mark.database_independent]


def test_the_lease_is_renewed_while_the_work_runs_and_not_after():
    renewed = []
    with heartbeat(timedelta(seconds=0.15), lambda: renewed.append(time.monotonic()), "test"):
        time.sleep(0.4)
    count = len(renewed)
    assert count >= 3  # every third of the lease
    time.sleep(0.2)
    assert len(renewed) == count
    assert not [t for t in threading.enumerate() if t.name == "lease-test"]


def test_a_failed_renewal_is_logged_and_the_beat_goes_on(caplog):
    calls = []

    def renew():
        calls.append(1)
        raise RuntimeError("database gone")

    with caplog.at_level(logging.ERROR), heartbeat(timedelta(seconds=0.15), renew, "job 7"):
        time.sleep(0.3)
    assert len(calls) >= 2
    assert "could not renew the lease on job 7" in caplog.text
