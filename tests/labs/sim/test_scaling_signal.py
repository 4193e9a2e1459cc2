"""Lessons 07 and 12: an I/O-bound pool never trips a CPU scaler; depth, backlog per worker
and the oldest message's age do add workers; backlog per worker is Lesson 12's rule."""

from __future__ import annotations

import pytest

from labs.sim.drain import drain, per_backlog
from labs.sim.scaling_signal import Settings, cleared_at, scale

BURST = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
LESSON = Settings(
    per_worker=100,
    busy_cpu_pct=5.0,
    min_workers=1,
    max_workers=10,
    cooldown_s=1,
    cpu_target_pct=60.0,
    depth_alarm=100,
    per_waiting=100,
    age_target_s=2.0,
)


def test_an_io_bound_pool_never_reaches_the_cpu_target():
    rows = scale(BURST, "cpu", LESSON)
    assert {r.workers for r in rows} == {1}
    assert max(r.cpu_pct for r in rows) == 5.0
    assert [r.backlog for r in rows][-1] == 1950  # 2,200 at the peak, 50 a second less after


def test_backlog_per_worker_is_lesson_12s_rule():
    rows = scale(BURST, "per_worker", LESSON)
    lesson = drain(BURST, 100, per_backlog(100, 1, 10))
    assert [(r.workers, r.done, r.backlog) for r in rows] == [
        (r.workers, r.done, r.backlog) for r in lesson
    ]
    assert max(r.backlog for r in rows) == 800 and max(r.workers for r in rows) == 8
    assert cleared_at(rows) == 6


def test_a_depth_alarm_adds_one_worker_a_second():
    rows = scale(BURST, "depth", LESSON)
    assert [r.workers for r in rows] == [1, 1, 2, 3, 4, 5, 6, 7, 6, 5]
    assert max(r.backlog for r in rows) == 1800


def test_the_oldest_age_reacts_late_then_jumps_to_the_ceiling():
    rows = scale(BURST, "age", LESSON)
    assert [r.oldest_age_s for r in rows][:5] == [0, 1, 2, 3, 4]
    assert [r.workers for r in rows] == [1, 1, 1, 1, 2, 4, 8, 10, 5, 1]


def test_a_cpu_bound_pool_does_trip_the_cpu_scaler():
    rows = scale(BURST, "cpu", LESSON._replace(busy_cpu_pct=100.0))
    assert max(r.workers for r in rows) == 10


def test_a_cool_down_holds_the_pool_between_changes():
    rows = scale(BURST, "per_worker", LESSON._replace(cooldown_s=3))
    changes = [
        r.second for before, r in zip(rows, rows[1:], strict=False) if r.workers != before.workers
    ]
    assert all(b - a >= 3 for a, b in zip(changes, changes[1:], strict=False))
    assert max(r.backlog for r in rows) == 900


def test_it_refuses_a_floor_above_the_ceiling():
    with pytest.raises(ValueError, match="min_workers"):
        scale(BURST, "cpu", LESSON._replace(min_workers=11))
