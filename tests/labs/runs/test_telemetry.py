"""The site's own queues, sampled: depth and oldest age from the runs, rates, percentiles,
failures by reason and workers alive, written to the real Redis for every process to read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.runs import telemetry, telemetry_store
from labs.runs.models import Run
from tests.base import make_user

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def make_run(owner, queue, *, status="queued", age_s=0.0, ran_s=None, took_s=None, lab="drain",
             **fields):  # fmt: skip
    now = timezone.now()
    created = now - timedelta(seconds=age_s)
    extra = {}
    if ran_s is not None:  # started `took_s` after it was made, finished `ran_s` later
        extra["started_at"] = created + timedelta(seconds=took_s or 0)
        extra["finished_at"] = extra["started_at"] + timedelta(seconds=ran_s)
        extra["attempts"] = 1
    return Run.objects.create(
        owner=owner, lab=lab, params={}, seed=1, queue=queue, status=status,
        created_at=created, **extra, **fields,
    )  # fmt: skip


def test_depth_and_oldest_age_count_only_the_runs_that_need_a_worker(own_queues):
    quick, heavy = own_queues
    alice = make_user("alice")
    leader = make_run(alice, quick, age_s=3.0)
    make_run(alice, quick, age_s=1.0)
    make_run(alice, quick, age_s=5.0, same_as=leader)  # waits on its twin: no worker
    make_run(alice, heavy, status="running", age_s=8.0)

    snap = telemetry.Sampler().tick()

    assert snap is not None
    assert snap["queues"][quick]["depth"] == 2
    assert snap["queues"][quick]["oldest_s"] == pytest.approx(3.0, abs=0.5)
    assert snap["queues"][heavy]["depth"] == 0
    assert snap["queues"][heavy]["oldest_s"] is None
    assert snap["queues"][quick]["workers"] == 0
    # What every other process reads is what was sampled.
    assert telemetry_store.snapshot()["queues"][quick]["depth"] == 2
    assert telemetry_store.samples()[-1]["q"][quick][:2] == [2, snap["queues"][quick]["oldest_s"]]


def test_the_front_is_the_oldest_run_sent_at_the_first_priority(own_queues):
    """Every lane's next run waits behind the runs sent at priority 0 (`labs.runs.
    fair_share`): their oldest is the front, while the queue's oldest may be deep in one
    class's flood."""
    quick, heavy = own_queues
    alice = make_user("alice")
    make_run(alice, quick, age_s=30.0, priority=6)
    make_run(alice, quick, age_s=4.0, priority=0)
    make_run(alice, quick, age_s=2.0, priority=0)
    make_run(alice, heavy, age_s=9.0, priority=3)
    snap = telemetry.Sampler().tick()
    assert snap is not None
    figures = snap["queues"][quick]
    assert (figures["depth"], figures["oldest_s"]) == (3, pytest.approx(30.0, abs=0.5))
    assert figures["front_oldest_s"] == pytest.approx(4.0, abs=0.5)
    assert snap["queues"][heavy]["front_oldest_s"] is None  # nothing waits at the front


def test_an_experiment_waiting_for_its_owners_other_one_is_not_the_sites_backlog(own_queues):
    """Turns (labs.runs.turns): Alice's second experiment waits for her first, not for a
    worker, so it must not make the heavy queue look old to the admission of everyone."""
    _, heavy = own_queues
    alice, bob = make_user("alice"), make_user("bob")
    lease = timezone.now() + timedelta(seconds=30)
    make_run(alice, heavy, lab="trapped-live", status="running", lease_expires_at=lease)
    make_run(alice, heavy, lab="trapped-live", age_s=200.0)  # her turn has not come
    make_run(bob, heavy, lab="trapped-live", age_s=4.0)

    snap = telemetry.Sampler().tick()

    assert snap["queues"][heavy]["depth"] == 1
    assert snap["queues"][heavy]["oldest_s"] == pytest.approx(4.0, abs=0.5)


def test_runs_in_and_out_are_counted_once_and_give_percentiles_and_failures(own_queues):
    quick, _heavy = own_queues
    alice = make_user("alice")
    sampler = telemetry.Sampler()
    sampler.tick()
    for i in range(10):  # ran 0.1 .. 1.0 s, each after waiting 0.5 s
        make_run(alice, quick, status="succeeded", age_s=2.0, ran_s=0.1 * (i + 1), took_s=0.5)
    make_run(alice, quick, status="failed", age_s=2.0, error_code="busy_or_down",
             finished_at=timezone.now())  # fmt: skip

    snap = sampler.tick()
    again = sampler.tick()  # the same runs are not counted twice

    mine = snap["queues"][quick]
    assert mine["run_s"]["5m"] == {"p50": 0.5, "p95": 1.0, "p99": 1.0, "n": 10}
    assert mine["latency_s"]["5m"]["n"] == 11
    # 0.6 .. 1.5 s for the ten, 2.0 s for the one no worker took
    assert mine["latency_s"]["5m"]["p50"] == pytest.approx(1.1, abs=0.01)
    assert mine["latency_s"]["5m"]["p99"] == pytest.approx(2.0, abs=0.01)
    assert mine["failures"]["5m"] == {"busy_or_down": 1}
    assert mine["failures"]["60m"] == {"busy_or_down": 1}
    assert [s["q"][quick][3:5] for s in telemetry_store.samples()[-3:]] == [
        [0, 0], [10, 11], [0, 0]
    ]  # fmt: skip
    assert again["queues"][quick]["run_s"]["5m"]["n"] == 10
    totals = telemetry_store.totals()
    assert totals[f"started|{quick}"] == 10
    assert totals[f"finished|{quick}|drain|succeeded"] == 10
    assert totals[f"failed|{quick}|busy_or_down"] == 1


def test_a_net_outflow_gives_the_drain_estimate(own_queues):
    quick, _heavy = own_queues
    alice = make_user("alice")
    sampler = telemetry.Sampler()
    sampler.tick()
    for _ in range(20):
        make_run(alice, quick, age_s=0.5)  # arrived: 20 in this second
    for _ in range(40):
        make_run(alice, quick, status="succeeded", age_s=10, ran_s=0.1, took_s=9.5)
    snap = sampler.tick()["queues"][quick]
    # Two samples: 20 in and 40 out in one, nothing in the other, so 10/s in, 20/s out.
    assert (snap["arrived_per_s"], snap["started_per_s"], snap["net_per_s"]) == (10, 20, 10)
    assert snap["drain_s"] == 2.0


def test_one_sampler_leads_the_others_wait(own_queues):
    first, second = telemetry.Sampler(), telemetry.Sampler()
    assert first.tick() is not None
    assert second.tick() is None
    telemetry_store.client().delete(telemetry_store.key("leader"))  # the leader died
    assert second.tick() is not None
    assert first.tick() is None


def test_workers_alive_come_from_their_beats(own_queues):
    quick, heavy = own_queues
    now = timezone.now().timestamp()
    telemetry_store.beat("w1@here", [quick, heavy], now=now - 10)  # silent since
    telemetry_store.beat("w2@here", [quick], now=now)
    assert telemetry_store.workers_alive([quick, heavy], now=now) == {
        quick: ["w2@here"], heavy: []
    }  # fmt: skip
    telemetry_store.gone("w2@here", [quick])
    assert telemetry_store.workers_alive([quick], now=now) == {quick: []}


def test_no_snapshot_when_no_sampler_has_written(own_queues):
    assert telemetry_store.snapshot() is None
    assert telemetry_store.queue_figures(own_queues[0]) is None


def test_percentiles_by_nearest_rank():
    assert telemetry.percentiles([]) == {"p50": None, "p95": None, "p99": None, "n": 0}
    values = [float(v) for v in range(1, 101)]
    assert telemetry.percentiles(values) == {"p50": 50, "p95": 95, "p99": 99, "n": 100}
