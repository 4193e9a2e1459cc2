"""Lesson 12's worker tier under target tracking: the target from the acceptable wait, the
lesson's own figures on backlog per instance, and CPU lagging or misleading on the same burst."""

from __future__ import annotations

import pytest

from labs.sim.drain import drain, per_backlog
from labs.sim.target_tracking import Tier, backlog_target, late_seconds, play, track

BURST = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
API = Tier(
    per_instance=1000,
    busy_cpu_pct=100.0,
    min_instances=1,
    max_instances=10,
    cpu_target_pct=60.0,
    acceptable_latency_s=1,
)


def workers(busy_cpu_pct: float = 100.0, max_instances: int = 10) -> Tier:
    return Tier(100, busy_cpu_pct, 1, max_instances, 60.0, 1)


def test_the_target_is_the_acceptable_wait_over_the_time_per_message():
    # Lesson 12: a worker does 100 a second (10 ms each); a 1 s wait gives its "1 per 100".
    assert backlog_target(1, 100) == 100
    assert backlog_target(3, 100) == 300
    assert backlog_target(0.5, 3) == 1  # never below one message
    with pytest.raises(ValueError, match="acceptable_latency_s"):
        backlog_target(0, 100)
    with pytest.raises(ValueError, match="per_instance"):
        backlog_target(1, 0)


def test_backlog_per_instance_reproduces_lesson_12s_figures():
    rows = track(BURST, "backlog", workers())
    lesson = drain(BURST, 100, per_backlog(100, 1, 10))
    assert [(r.workers, r.done, r.backlog) for r in rows] == [
        (r.workers, r.done, r.backlog) for r in lesson
    ]
    assert max(r.backlog for r in rows) == 800 and max(r.workers for r in rows) == 8
    assert rows[6].backlog == 0 and rows[-1].workers == 1
    assert late_seconds(rows, 1) == 0


def test_on_cpu_work_the_cpu_policy_lags_behind_the_burst():
    rows = track(BURST, "cpu", workers())
    # 100% CPU against a 60% target: the pool grows 1, 2, 4, 7, 10, a second behind each.
    assert [r.workers for r in rows[:6]] == [1, 1, 2, 4, 7, 10]
    assert max(r.backlog for r in rows) == 1700
    assert max(r.oldest_age_s for r in rows) == 3
    assert late_seconds(rows, 1) == 4
    assert rows[6].workers == 10 and rows[6].backlog == 0  # and it holds 10 for an empty queue


def test_on_io_work_the_cpu_policy_never_adds_a_worker():
    rows = track(BURST, "cpu", workers(busy_cpu_pct=5.0))
    assert {r.workers for r in rows} == {1}
    assert max(r.backlog for r in rows) == 2200
    assert late_seconds(rows, 1) == 8


def test_a_ceiling_too_low_leaves_even_backlog_per_instance_late():
    rows = track(BURST, "backlog", workers(max_instances=4))
    assert max(r.workers for r in rows) == 4
    assert late_seconds(rows, 1) > 0


def test_the_api_passes_on_what_it_answered_and_waits_when_its_copies_are_few():
    played = play(BURST, API, workers())
    assert [r.done for r in played.api] == BURST
    assert max(r.workers for r in played.api) == 2
    slow = Tier(200, 100.0, 1, 10, 60.0, 1)
    lagging = play(BURST, slow, workers())
    assert max(r.backlog for r in lagging.api) > 0
    assert sum(r.done for r in lagging.api) <= sum(BURST)
    assert [r.arrived for r in lagging.workers["backlog"]] == [r.done for r in lagging.api]


def test_an_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="metric"):
        track(BURST, "depth", workers())  # type: ignore[arg-type]
