"""No message is lost by the worker pool: crashes at random points, dropped connections, races."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labs.experiments.effects import Effects
from labs.experiments.faults import CRASH_POINTS, CrashAt, CrashPlan, StandInService
from labs.experiments.namespace import Namespace
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.workers import WorkerContext, WorkerPool
from tests.labs.experiments.conftest import wait_for

pytestmark = pytest.mark.redis


def sms_handler(effects: Effects, provider: StandInService | None = None):
    def make(ctx: WorkerContext):
        mine = effects.with_client(ctx.r)

        def handle(message: Message) -> None:
            if provider is not None:
                provider.call(message.msg_id)
            mine.apply(message.msg_id)

        return handle

    return make


def settled(q: RedisQueue, n: int) -> bool:
    s = q.stats()
    return s.done + s.dead + s.expired >= n


def assert_every_id_accounted_for_once(q: RedisQueue, ids: list[str]) -> None:
    done, expired = q.done_ids(), q.expired_ids()
    parked = {d.msg_id for d in q.dead_letters(10_000)}
    assert done | expired | parked | set(q.queued_ids()) == set(ids)
    assert not (done & expired or done & parked or expired & parked)


@settings(
    max_examples=8,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    crashes=st.lists(
        st.tuples(st.integers(0, 24), st.sampled_from(CRASH_POINTS)),
        max_size=4,
        unique_by=lambda c: c[0],
    ),
    workers=st.integers(1, 3),
    batch=st.integers(1, 4),
)
def test_no_message_is_lost_when_workers_crash_at_random_points(r, crashes, workers, batch):
    ns = Namespace(ttl_s=60)
    try:
        q = RedisQueue(r, ns, visibility_timeout_s=0.08, max_receives=50)
        sent = Effects(r, ns, kind="sms_sent")
        ids = [f"sms-{i}" for i in range(20)]
        q.send_many((i, "") for i in ids)
        plan = CrashPlan(CrashAt(d, point) for d, point in crashes)
        pool = WorkerPool(q, sms_handler(sent), workers=workers, batch=batch, crash_plan=plan)
        with pool:
            assert wait_for(lambda: settled(q, len(ids)), timeout_s=10)
        assert pool.errors == []
        # A planned crash fires if its delivery is reached; one later in a batch whose worker
        # already died is handed out but never handled. The earliest one is always reached.
        assert pool.crashes <= sum(1 for d, _ in crashes if d < pool.delivered)
        if crashes and min(d for d, _ in crashes) < pool.delivered:
            assert pool.crashes >= 1
        assert q.done_ids() == set(ids)
        assert_every_id_accounted_for_once(q, ids)
        # Every crash left at least its message in flight, so it was delivered again...
        assert q.stats().duplicates_delivered >= pool.crashes
        # ...and still the SMS went out once per id.
        assert sent.counts() == dict.fromkeys(ids, 1)
    finally:
        ns.cleanup(r)


def test_without_idempotency_a_crash_after_the_effect_shows_as_a_duplicate_effect(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.08)
    sent = Effects(r, ns, kind="sms_sent", idempotent=False)
    ids = [f"sms-{i}" for i in range(10)]
    q.send_many((i, "") for i in ids)
    plan = CrashPlan([CrashAt(3, "after_effect")])
    with WorkerPool(q, sms_handler(sent), workers=2, crash_plan=plan) as pool:
        assert wait_for(lambda: settled(q, len(ids)))
    assert pool.crashes == 1
    [crashed] = pool.crashed_msg_ids
    counts = sent.counts()
    assert counts[crashed] == 2
    assert sent.totals()["duplicate_effects"] == 1
    assert q.done_ids() == set(ids)


def kill_worker_connections(r, prefix: str) -> int:
    killed = 0
    for client in r.client_list():
        if client.get("name", "").startswith(prefix):
            killed += int(r.client_kill_filter(_id=client["id"]))
    return killed


def test_no_message_is_lost_when_consumer_connections_are_killed_mid_run(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=0.15, max_receives=50)
    sent = Effects(r, ns, kind="sms_sent")
    ids = [f"sms-{i}" for i in range(240)]
    q.send_many((i, "") for i in ids)
    provider = StandInService(latency_s=0.004)
    pool = WorkerPool(q, sms_handler(sent, provider), workers=3, batch=4)
    killed = []
    with pool:
        for _ in range(3):
            time.sleep(0.1)
            killed.append((kill_worker_connections(r, ns.prefix), q.stats().done))
        assert wait_for(lambda: settled(q, len(ids)), timeout_s=15)
    assert all(n >= 1 for n, _ in killed), killed  # each round really cut live connections
    assert all(done < len(ids) for _, done in killed), killed  # ...while work was left
    assert pool.errors == []
    assert q.done_ids() == set(ids)
    assert sent.counts() == dict.fromkeys(ids, 1)


def test_many_workers_racing_do_every_message_once(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=2, max_receives=50)
    sent = Effects(r, ns, kind="sms_sent")
    ids = [f"sms-{i}" for i in range(600)]
    q.send_many((i, "") for i in ids)
    with WorkerPool(q, sms_handler(sent), workers=8, batch=5) as pool:
        assert wait_for(lambda: settled(q, len(ids)), timeout_s=15)
    assert pool.errors == []
    assert pool.acked == len(ids)
    assert q.done_ids() == set(ids)
    assert sent.counts() == dict.fromkeys(ids, 1)
    # The timeout was never hit, so the race handed no message to two workers.
    assert q.stats().duplicates_delivered == 0
    assert len({d.msg_id for d in pool.deliveries}) == len(pool.deliveries) == len(ids)


def test_it_resizes_the_pool_and_paces_each_worker(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=5)
    q.send_many((f"m-{i}", "") for i in range(1000))
    pool = WorkerPool(q, workers=1, batch=5, rate_per_worker=100.0).start()
    try:
        time.sleep(0.5)
        one = q.stats().done
        pool.resize(4)
        assert pool.active_workers == 4
        time.sleep(0.5)
        four = q.stats().done - one
    finally:
        pool.stop()
    # The pace is a ceiling: never more than 100 a second per worker (plus one batch)...
    assert 25 <= one <= 55
    assert four <= 205
    # ...and four workers clearly do more than one, even on a busy machine.
    assert four >= 1.8 * one
    pool.resize(0)
    assert pool.active_workers == 0


def test_stop_wakes_a_worker_pacing_a_slow_batch(r, ns):
    """A worker at 1 job a second that took a batch of 20 owes 20 s of pace; stop() must not
    wait them out (burst-live's slow pools ran 10 s past their end this way)."""
    q = RedisQueue(r, ns, visibility_timeout_s=60)
    q.send_many((f"m-{i}", "") for i in range(40))
    pool = WorkerPool(q, workers=1, batch=20, rate_per_worker=1.0).start()
    assert wait_for(lambda: q.stats().in_flight == 20)
    pool.stop(timeout_s=5.0)
    assert not any(thread.is_alive() for thread in pool._threads)
    assert q.stats().done == 20  # the batch it had handled is acknowledged, not lost


def test_it_refuses_more_workers_than_the_cap(r, ns):
    q = RedisQueue(r, ns, create=False)
    with pytest.raises(ValueError, match="workers"):
        WorkerPool(q, workers=33)
    with pytest.raises(ValueError, match="batch"):
        WorkerPool(q, batch=0)
