"""Scenario 2 on the real Redis: redelivery to another phone, the DLQ, one charge per key."""

from __future__ import annotations

import pytest

from classlab.jobs import Jobs
from labs.experiments.namespace import Namespace, connect

pytestmark = pytest.mark.nodb


@pytest.fixture
def jobs():
    r = connect()
    ns = Namespace(ttl_s=60)
    j = Jobs(r, ns)
    j.setup({"visibility_ms": 50, "receive_limit": 2, "poison_every": 0, "duplicate_every": 0})
    yield j
    ns.cleanup(r)


def take_until(jobs, pid, job):
    """Receive as `pid` until `job` comes (each receive also reclaims timed-out jobs)."""
    for _ in range(1000):
        got = jobs.take(pid)
        if got and got["job"] == job:
            return got
    raise AssertionError(f"{job} never came back to {pid}")


def test_a_job_not_acknowledged_in_time_goes_to_another_phone(jobs):
    jobs.arrive(1)
    first = jobs.take("ana")
    assert first["job"] == "job-1"
    again = take_until(jobs, "ben", "job-1")
    assert again["receives"] == 2
    assert jobs.receivers("job-1") == ["ana", "ben"]
    assert jobs.finish("ana", "job-1") == "lost"


def test_a_poison_job_reaches_the_dlq_after_the_receive_limit(jobs):
    jobs.set(poison_every=1, visibility_ms=50)
    jobs.arrive(1)
    for pid in ("ana", "ben"):
        take_until(jobs, pid, "job-1")
        assert jobs.finish(pid, "job-1") == "poison"
    for _ in range(1000):
        jobs.take("cat")
        if jobs.reading()["dlq"] == 1:
            break
    assert jobs.reading()["dlq"] == 1
    assert jobs.counts()["charged"] == 0


def test_a_payment_delivered_twice_is_charged_once(jobs):
    jobs.set(duplicate_every=1, visibility_ms=60000)
    assert jobs.arrive(1) == ["job-1", "job-1-again"]
    for pid in ("ana", "ben"):
        got = jobs.take(pid)
        jobs.finish(pid, got["job"])
    counts = jobs.counts()
    assert counts["charged"] == 1 and counts["duplicates_caught"] == 1 and counts["acked"] == 2


def test_finishing_a_job_never_delivered_is_refused(jobs):
    with pytest.raises(ValueError, match="never delivered"):
        jobs.finish("ana", "job-9")


def test_a_phones_take_and_done_are_few_round_trips_to_redis(jobs, round_trips):
    # A class's phones call about a hundred times a second: each round trip is web CPU.
    jobs.set(visibility_ms=60000)
    jobs.arrive(2)
    jobs.finish("ana", jobs.take("ana")["job"])  # loads the queue's scripts into Redis
    round_trips.clear()
    _held, _mine, cfg = jobs.phone("ana")  # what the call reads first: one round trip
    got = jobs.take("ana", cfg)  # the receive, then its notes
    assert len(round_trips) == 3
    round_trips.clear()
    assert jobs.finish("ana", got["job"]) == "acked"
    assert len(round_trips) == 5
    assert jobs.mine("ana") == {"received": 2, "acked": 2}
    assert jobs.counts()["charged"] == 2
