"""Scenario 1's service on the real Redis: the policy enforced, the caps, both ledgers."""

from __future__ import annotations

import pytest

from classlab.storm import MAX_OUTSTANDING, MAX_SENDS_PER_S, Storm, ledger
from labs.experiments.namespace import Namespace, connect

pytestmark = pytest.mark.nodb


@pytest.fixture
def storm():
    r = connect()
    ns = Namespace(ttl_s=60)
    s = Storm(r, ns)
    s.setup({"pace_per_min": 0, "slots": 1, "service_ms": 10, "timeout_ms": 200})
    yield s
    ns.cleanup(r)


def test_a_tap_is_queued_served_and_answered(storm):
    storm.tick("p1", taps=1)
    assert storm.reading()["backlog"] == 1
    r = storm.r
    # The service turns until its slot's request is done (Redis time, not ours).
    while storm.counts()["served_ok"] == 0:
        storm.serve()
        r.ping()
    storm.tick("p1")
    assert storm.counts()["answered"] == 1
    book = ledger(storm)
    assert book["sent"] == book["phones_settled"] == 1
    assert book["enqueued"] == book["service_settled"] == 1


def test_a_phone_cannot_send_more_than_its_caps(storm):
    for _ in range(5):
        storm.tick("p1", taps=3)
    counts = storm.counts()
    assert counts["sent"] <= max(MAX_SENDS_PER_S * 2, MAX_OUTSTANDING)
    assert counts["sent"] + counts["capped"] == counts["taps"] == 15
    with pytest.raises(ValueError, match="taps must be between"):
        storm.tick("p1", taps=4)


def test_the_admission_limit_refuses_and_the_phone_retries_by_its_policy(storm):
    storm.set(admission=1, policy="immediate")
    storm.tick("p1", taps=2)  # one queued, one refused
    storm.tick("p1")  # the refusal is settled as failed and retried at once (refused again)
    counts = storm.counts()
    assert counts["failed"] == 1 and counts["retry"] == 1
    book = ledger(storm)
    assert book["sent"] == book["phones_settled"]


def test_a_bad_setting_is_refused_with_its_bounds(storm):
    with pytest.raises(ValueError, match="slots must be between 1 and 32"):
        storm.set(slots=0)


def test_a_phones_call_is_four_round_trips_to_redis_whatever_it_sends(storm, round_trips):
    # A class's phones call about a hundred times a second: each round trip is web CPU.
    storm.tick("p1", taps=3)  # loads the queue's script into Redis, if it is not yet there
    storm.tick("p1")  # settles three requests, sends none
    storm.set(admission=1, policy="immediate")
    round_trips.clear()
    storm.tick("p1", taps=3)  # three sent at once (refused but one), one script for them all
    assert len(round_trips) == 4
    round_trips.clear()
    storm.tick("p2")  # nothing to settle, nothing due: no script
    assert len(round_trips) == 3


def test_a_second_call_of_the_same_phone_waits_its_turn_and_changes_nothing(storm):
    from classlab.storm import Busy

    storm.tick("p1", taps=1)
    lock = storm.ns.key("lock", "p1")
    assert not storm.r.exists(lock)  # released by the call that held it
    storm.r.set(lock, "1", px=2000)  # a call of p1 is being answered
    before = storm.r.get(storm.ns.key("p", "p1"))
    with pytest.raises(Busy):
        storm.tick("p1", taps=3)
    assert storm.r.get(storm.ns.key("p", "p1")) == before
    assert storm.counts()["taps"] == 1
