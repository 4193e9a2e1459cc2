"""Clients that retry until they succeed or spend a budget (issue 36, item 4).

Marc Brooker's published backoff simulation ("Exponential Backoff And Jitter", AWS
Architecture Blog, 2015) ranks the schedules by the work they cause: no jitter is the
worst, and full and decorrelated jitter cut the total calls most. Nothing is fetched
here; the ranking is encoded as a test over seeds and a few loads.
"""

from __future__ import annotations

import statistics

import pytest

from labs.sim.retry_storm import retry_until_done

pytestmark = pytest.mark.nodb

SEEDS = range(20)
LOADS = [(100, 5), (500, 50), (500, 20), (2000, 50)]  # (clients, calls served per slot)


def _mean(clients: int, capacity: int, jitter: str, figure: str) -> float:
    runs = [retry_until_done(clients, 8, jitter, seed=s, capacity_per_slot=capacity) for s in SEEDS]
    return statistics.mean(r[figure] or 0 for r in runs)


@pytest.mark.parametrize(("clients", "capacity"), LOADS)
def test_no_jitter_makes_the_most_calls_and_full_and_decorrelated_the_fewest(clients, capacity):
    calls = {
        j: _mean(clients, capacity, j, "calls") for j in ("none", "full", "equal", "decorrelated")
    }
    assert calls["none"] == max(calls.values())
    assert max(calls["full"], calls["decorrelated"]) < calls["none"] / 2
    assert min(calls["full"], calls["decorrelated"]) < calls["equal"] < calls["none"]


@pytest.mark.parametrize(("clients", "capacity"), LOADS)
def test_no_jitter_finishes_last_and_leaves_clients_unserved(clients, capacity):
    done = {
        j: _mean(clients, capacity, j, "last_served_ms") for j in ("none", "full", "decorrelated")
    }
    assert done["none"] > max(done["full"], done["decorrelated"])
    assert _mean(clients, capacity, "none", "gave_up") > 0
    assert _mean(clients, capacity, "full", "gave_up") == 0


def test_every_client_is_counted_once():
    r = retry_until_done(500, 4, "none", capacity_per_slot=50)
    assert r["served"] + r["gave_up"] == 500
    # No jitter: 500 together at 100 ms, 50 served each time they return, 4 returns.
    assert r["served"] == 200 and r["calls"] == 500 + 500 + 450 + 400 + 350
