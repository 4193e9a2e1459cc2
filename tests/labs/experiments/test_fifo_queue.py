"""The FIFO queue's rules on the real Redis: order per group, deduplication, a blocked group."""

from __future__ import annotations

import time

import pytest

from labs.experiments.fifo_queue import FifoQueue

pytestmark = pytest.mark.redis


def test_it_hands_out_a_groups_next_message_only_after_the_one_before_is_done(r, ns):
    q = FifoQueue(r, ns, visibility_timeout_s=30)
    for k in (1, 2):
        q.send("a", f"a#{k}", str(k))
    q.send("b", "b#1", "1")
    first = q.receive()
    assert first is not None and (first.group, first.body) == ("a", "1")
    other = q.receive()
    assert other is not None and (other.group, other.body) == ("b", "1")
    assert q.receive() is None  # a#2 waits behind a#1, b is empty
    assert q.ack(first)
    after = q.receive()
    assert after is not None and (after.group, after.body) == ("a", "2")


def test_a_resend_within_the_window_is_dropped_and_one_after_it_is_kept(r, ns):
    q = FifoQueue(r, ns, dedup_window_s=0.2)
    assert q.send("a", "a#1") is not None
    assert q.send("a", "a#1") is None
    time.sleep(0.3)
    assert q.send("a", "a#1") is not None
    stats = q.stats()
    assert (stats.sent, stats.deduplicated, stats.queued) == (2, 1, 2)


def test_a_failing_message_blocks_only_its_group_until_max_receives_then_the_dlq(r, ns):
    q = FifoQueue(r, ns, visibility_timeout_s=0.05, max_receives=3)
    q.send("a", "a#1", "poison")
    q.send("a", "a#2", "next")
    q.send("b", "b#1", "other")
    receives = []
    other = None
    while True:
        message = q.receive()
        if message is None:
            time.sleep(0.01)
            continue
        if message.group == "b":
            other = message
            q.ack(message)
            continue
        if message.body == "next":
            break
        receives.append(message.receives)  # never acknowledged: it fails every time
    assert receives == [1, 2, 3]
    assert other is not None
    assert [d.body for d in q.dead_letters()] == ["poison"]
    assert q.stats().dead == 1


def test_a_late_ack_after_the_message_came_back_is_refused(r, ns):
    q = FifoQueue(r, ns, visibility_timeout_s=0.05, max_receives=5)
    q.send("a", "a#1")
    first = q.receive()
    time.sleep(0.1)
    again = q.receive()
    assert first is not None and again is not None and again.receives == 2
    assert q.ack(first) is True  # same message, still the group's head: SQS would accept it
    assert q.ack(again) is False  # already gone
