"""Operating the dead-letter queue: the panel's list, redrive one, redrive all at a bounded rate."""

from __future__ import annotations

import time

import pytest

from labs.experiments.dlq import copy_dead_letters, keep_dead_letters, open_kept, redrive_all
from labs.experiments.metrics import queue_panel
from labs.experiments.namespace import Namespace
from labs.experiments.queue import RedisQueue
from tests.labs.experiments.conftest import wait_for

pytestmark = pytest.mark.redis


def park(q: RedisQueue, ids: list[str], error: str = "PoisonMessage('bad')") -> None:
    """Send `ids` and fail each until it is parked (max_receives must be 1)."""
    q.send_many((i, f"body of {i}") for i in ids)
    for m in q.receive("w", len(ids)):
        q.fail(m, f"{error} {m.msg_id}", retry_after_s=0)
    assert q.receive("w", len(ids)) == []
    assert q.dlq_depth() == len(ids)


def test_the_panel_lists_parked_messages_with_receives_and_last_error(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    park(q, ["pdf-3", "pdf-7"])
    q.send_many([("pdf-8", ""), ("pdf-9", "")])
    q.receive("w")
    panel = queue_panel(q, capacity_per_s=10)
    assert panel["dlq"] == [
        {"id": "pdf-3", "receives": 1, "last_error": "PoisonMessage('bad') pdf-3"},
        {"id": "pdf-7", "receives": 1, "last_error": "PoisonMessage('bad') pdf-7"},
    ]
    assert (panel["depth"], panel["in_flight"], panel["dlq_depth"]) == (1, 1, 2)
    assert panel["drain_estimate_s"] == 0.2  # 2 not done / 10 a second
    assert panel["oldest_age_s"] is not None


def test_redrive_one_moves_it_back_as_a_new_message(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    park(q, ["pdf-3", "pdf-7"])
    assert q.redrive("pdf-7") is True
    assert q.redrive("pdf-7") is False  # no longer parked
    assert [d.msg_id for d in q.dead_letters()] == ["pdf-3"]
    [m] = q.receive("fixed-worker")
    assert (m.msg_id, m.body, m.receives) == ("pdf-7", "body of pdf-7", 1)
    assert q.ack(m)
    assert q.stats().redriven == 1


def test_redrive_all_never_moves_faster_than_the_rate(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    ids = [f"pdf-{i}" for i in range(20)]
    park(q, ids)
    report = redrive_all(q, rate_per_s=50)  # the bucket holds 2.5 tokens at most
    assert report.moved == 20
    assert q.dlq_depth() == 0
    assert sorted(q.queued_ids()) == sorted(ids)
    # In any window of w seconds at most 2.5 + 50 w moved, as the client timed them (plus
    # one: the thread may be paused between taking a token and noting the time)...
    times = [t_s for t_s, _ in report.moves]
    for i in range(len(times)):
        for j in range(i, len(times)):
            assert j - i + 1 <= 2.5 + 1 + 50 * (times[j] - times[i]) + 1e-9
    # ...and as Redis saw them: the new entries carry the server's clock.
    entry_ms = [int(eid.split(b"-")[0]) for eid, _ in r.xrange(q.stream)]
    assert entry_ms[-1] - entry_ms[0] >= (20 - 2.5) / 50 * 1000 - 20
    assert report.duration_s >= (20 - 2.5) / 50


def test_redrive_all_stops_when_asked(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    park(q, [f"pdf-{number}" for number in range(10)])
    report = redrive_all(q, rate_per_s=20, should_stop=lambda: q.stats().redriven >= 3)
    assert report.stopped
    assert 3 <= report.moved < 10
    assert q.dlq_depth() == 10 - report.moved


def test_redrive_all_moves_no_more_than_its_limit(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    park(q, [f"pdf-{i}" for i in range(6)])
    report = redrive_all(q, rate_per_s=1000, limit=4)
    assert report.moved == 4 and q.dlq_depth() == 2
    assert redrive_all(q, rate_per_s=1000, limit=0).moved == 0


def test_purge_dlq_empties_it(r, ns):
    q = RedisQueue(r, ns, max_receives=1)
    park(q, ["a", "b"])
    assert q.purge_dlq() == 2
    assert q.dead_letters() == []
    assert q.redrive("a") is False


def test_a_redriven_message_can_be_parked_again_with_a_fresh_count(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.05, max_receives=2)
    q.send("pdf-3")
    for _ in range(2):
        got = []
        assert wait_for(lambda got=got: bool(got.extend(q.receive("w")) or got), timeout_s=2)
        q.fail(got[0], "still broken")
    assert wait_for(lambda: q.receive("w") == [] and q.dlq_depth() == 1, timeout_s=2)
    assert q.redrive("pdf-3")
    [m] = q.receive("w")
    assert m.receives == 1


def test_redrive_refuses_a_rate_outside_the_bounds(r, ns):
    q = RedisQueue(r, ns, create=False)
    with pytest.raises(ValueError, match="rate_per_s"):
        redrive_all(q, rate_per_s=0)


def test_keep_copies_the_dlq_into_another_namespace_that_ends_on_time(r, ns):
    q = RedisQueue(r, ns.child("run"), visibility_timeout_s=0.4, max_receives=1)
    park(q, ["pdf-3", "pdf-7"])
    before = q.dead_letters()
    into = Namespace(f"{ns.run_id}-kept", ttl_s=30)
    try:
        assert keep_dead_letters(q, into) == 2
        ns.child("run").cleanup(r)  # the run's own keys go; the copy stays and works
        kept = open_kept(r, into.run_id)
        assert kept is not None
        assert (kept.visibility_timeout_s, kept.max_receives) == (0.4, 1)
        assert kept.dead_letters() == before  # id, body, receives, last error, both times
        assert 29 < kept.ns.ttl_s <= 30
        time.sleep(1.1)
        # Acting on it does not push its end back: every key keeps the time it had left.
        assert open_kept(r, into.run_id).redrive("pdf-7")
        assert max(r.pttl(k) for k in into.keys(r)) <= 29_000
        [m] = kept.receive("fixed")
        assert (m.msg_id, m.body) == ("pdf-7", "body of pdf-7")
    finally:
        into.cleanup(r)
    assert open_kept(r, into.run_id) is None


def test_copying_twice_keeps_each_message_once(r, ns):
    q = RedisQueue(r, ns.child("run"), max_receives=1)
    park(q, [f"pdf-{i}" for i in range(5)])
    kept = RedisQueue(r, ns.child("kept"))
    assert copy_dead_letters(q, kept) == 5
    assert copy_dead_letters(q, kept) == 0
    assert kept.dlq_depth() == 5
