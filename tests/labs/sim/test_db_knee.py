"""Workers scaled on the backlog alone push the database past its knee and the queue never
clears; the same scaler capped at the knee drains the same burst."""

from __future__ import annotations

import pytest

from labs.sim.db_knee import Database, caught_up_at, latency_ms, serve, throughput_per_s

DB = Database(query_ms=10.0, knee=16, contention_pct=5.0, max_connections=100)
BURST = [800] * 5 + [3000] * 5 + [800] * 50


def test_the_database_answers_most_at_its_knee():
    answered = [throughput_per_s(c, DB) for c in (1, 8, 16, 17, 30, 50, 100)]
    assert answered == pytest.approx(
        [100, 800, 1600, 1600 / 1.05, 1600 / 1.7, 1600 / 2.7, 1600 / 5.2]
    )
    assert latency_ms(16, DB) == 10.0
    assert latency_ms(50, DB) == pytest.approx(84.375)  # 50 in flight / 592.6 a second


def test_scaling_on_the_backlog_alone_traps_the_queue():
    rows = serve(BURST, DB, per_waiting=100, max_workers=50)
    assert rows[-1].workers == 50 and rows[-1].done == 592  # fewer than the 800 arriving
    assert rows[-1].backlog == 22683
    assert caught_up_at(rows, 800, 5) is None


def test_a_cap_at_the_knee_drains_the_same_burst():
    rows = serve(BURST, DB, per_waiting=100, max_workers=16)
    assert max(r.done for r in rows) == 1600
    assert max(r.backlog for r in rows) == 8600
    assert caught_up_at(rows, 800, 5) == 19
    assert rows[-1].workers == 8


def test_workers_past_the_connection_limit_are_refused():
    rows = serve(BURST, DB, per_waiting=100, max_workers=150)
    assert (rows[-1].workers, rows[-1].connected, rows[-1].done) == (150, 100, 307)


def test_it_refuses_a_database_with_no_time_per_query():
    with pytest.raises(ValueError, match="query_ms"):
        throughput_per_s(1, DB._replace(query_ms=0))
