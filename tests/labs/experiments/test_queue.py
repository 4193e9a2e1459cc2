"""SQS's rules on the Redis queue: visibility timeout, receive count, DLQ, retention, purge."""

from __future__ import annotations

import time

import pytest

from labs.experiments.queue import RedisQueue
from tests.labs.experiments.conftest import wait_for

pytestmark = pytest.mark.redis


def ids(n: int, stem: str = "m") -> list[str]:
    return [f"{stem}-{i}" for i in range(n)]


def test_it_delivers_each_message_once_and_forgets_it_when_acked(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=5)
    q.send_many((i, f"body {i}") for i in ids(5))
    got = q.receive("c1", 10)
    assert [m.msg_id for m in got] == ids(5)
    assert [m.body for m in got] == [f"body {i}" for i in ids(5)]
    assert all(m.receives == 1 for m in got)
    assert q.receive("c2", 10) == []  # all in flight, hidden from everyone else
    stats = q.stats()
    assert (stats.visible, stats.in_flight) == (0, 5)
    assert q.ack_many(got) == 5
    stats = q.stats()
    assert (stats.visible, stats.in_flight, stats.done, stats.oldest_age_s) == (0, 0, 5, None)
    assert q.done_ids() == set(ids(5))
    assert q.queued_ids() == []


def test_it_makes_an_unacked_message_visible_again_after_the_visibility_timeout(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.15)
    q.send("sms-2")
    [first] = q.receive("worker-that-dies")
    assert q.receive("other") == []
    assert q.stats().in_flight == 1
    again = []
    assert wait_for(lambda: bool(again.extend(q.receive("other")) or again), timeout_s=2)
    [second] = again
    assert second.msg_id == "sms-2"
    assert second.receives == 2
    # Never before the timeout (Redis clock, 1 ms resolution), and not long after it.
    assert 149 <= second.received_ms - first.received_ms < 400
    assert q.stats().duplicates_delivered == 1


def test_a_late_ack_after_the_message_came_back_still_counts_it_done_once(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.05)
    q.send("a")
    [slow] = q.receive("slow")
    time.sleep(0.08)
    [fast] = q.receive("fast")
    assert q.ack(slow) is True
    assert q.ack(fast) is False
    assert q.stats().done == 1


def test_it_parks_a_message_in_the_dlq_after_max_receives_with_count_and_last_error(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.05, max_receives=3)
    q.send("pdf-7", "broken")
    receives = []
    for attempt in range(1, 4):
        got = []
        assert wait_for(lambda got=got: bool(got.extend(q.receive("w")) or got), timeout_s=2)
        assert [m.receives for m in got] == [attempt]
        receives.append(got[0])
        q.fail(got[0], f"ValueError('bad pdf, try {attempt}')")
    # The move happens on the receive after the timeout runs out, which hands out nothing.
    assert wait_for(lambda: q.receive("w") == [] and q.dlq_depth() == 1, timeout_s=2)
    [parked] = q.dead_letters()
    assert (parked.msg_id, parked.body, parked.receives) == ("pdf-7", "broken", 3)
    assert parked.last_error == "ValueError('bad pdf, try 3')"
    stats = q.stats()
    assert (stats.visible, stats.in_flight, stats.dead, stats.receives) == (0, 0, 1, 3)
    assert q.ack(receives[-1]) is False  # too late: it lives in the DLQ now


def test_fail_with_retry_after_zero_makes_it_visible_at_once_without_counting_a_receive(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=30)
    q.send("x")
    [m] = q.receive("w")
    assert q.fail(m, "blip", retry_after_s=0) is True
    [again] = q.receive("w2")
    assert again.receives == 2
    assert q.stats().failures == 1


def test_retention_deletes_old_messages_done_or_not_and_counts_them(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=30, retention_s=0.2)
    q.send_many((i, "") for i in ids(4, "old"))
    in_flight = q.receive("w", 2)
    time.sleep(0.25)
    q.send("fresh")
    got = q.receive("w", 10)
    assert [m.msg_id for m in got] == ["fresh"]
    stats = q.stats()
    assert stats.expired == 4
    assert (stats.visible, stats.in_flight) == (0, 1)
    assert q.expired_ids() == set(ids(4, "old"))
    assert q.ack_many(in_flight) == 0  # expired while being worked on: not done
    assert q.done_ids() == set()


def test_stats_alone_apply_retention_on_an_idle_queue(r, ns):
    q = RedisQueue(r, ns, retention_s=0.1)
    q.send("forgotten")
    time.sleep(0.15)
    stats = q.stats()
    assert (stats.expired, stats.visible, stats.oldest_age_s) == (1, 0, None)


def test_it_reports_the_age_of_the_oldest_message(r, ns):
    q = RedisQueue(r, ns)
    q.send("first")
    time.sleep(0.2)
    q.send("second")
    age = q.stats().oldest_age_s
    assert age is not None and 0.19 <= age < 1.0


def test_purge_deletes_waiting_and_in_flight_messages(r, ns):
    q = RedisQueue(r, ns)
    q.send_many((i, "") for i in ids(6))
    in_flight = q.receive("w", 2)
    assert q.purge() == 6
    stats = q.stats()
    assert (stats.visible, stats.in_flight, stats.purged) == (0, 0, 6)
    assert q.ack_many(in_flight) == 0
    q.send("after")
    assert [m.msg_id for m in q.receive("w")] == ["after"]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"visibility_timeout_s": 0}, "visibility_timeout_s"),
        ({"visibility_timeout_s": 50_000}, "visibility_timeout_s"),
        ({"max_receives": 0}, "max_receives"),
        ({"max_receives": 1001}, "max_receives"),
        ({"retention_s": 0.01}, "retention_s"),
        ({"retention_s": 15 * 24 * 3600}, "retention_s"),
    ],
)
def test_it_refuses_settings_outside_the_bounds_naming_them(r, ns, kwargs, name):
    with pytest.raises(ValueError, match=name):
        RedisQueue(r, ns, create=False, **kwargs)


def test_it_refuses_bad_receive_and_fail_arguments(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=1)
    with pytest.raises(ValueError, match="max_messages"):
        q.receive("w", 0)
    q.send("a")
    [m] = q.receive("w")
    with pytest.raises(ValueError, match="retry_after_s"):
        q.fail(m, "x", retry_after_s=2)
    with pytest.raises(ValueError, match="msg_id"):
        q.send("")


def test_it_acknowledges_a_batch_larger_than_one_script_call(r, ns):
    q = RedisQueue(r, ns)
    q.send_many((f"m-{i}", "") for i in range(2500))
    got = []
    while batch := q.receive("w", 1000):
        got += batch
    assert q.ack_many(got + got[:10]) == 2500
    assert q.stats().done == 2500


def test_a_retry_after_a_reported_failure_is_not_a_duplicate_delivery(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=1.0)
    q.send_many([("failed", "x"), ("lost", "y")])
    first = {m.msg_id: m for m in q.receive("w", 2)}
    q.fail(first["failed"], "Refused('the breaker is open')", retry_after_s=0)
    [retry] = q.receive("w", 2)  # at once: "lost" is still in flight
    assert retry.msg_id == "failed" and q.ack(retry)
    # "lost" was never reported: its worker may have done it, so it comes back as a duplicate.
    later: list = []
    assert wait_for(lambda: bool(later.extend(q.receive("w", 2)) or later), timeout_s=3)
    assert [m.msg_id for m in later] == ["lost"] and q.ack(later[0])
    stats = q.stats()
    assert (stats.duplicates_delivered, stats.retried, stats.receives) == (1, 1, 4)
