"""Latency percentiles of answered callers in the capstone models (p50, p95, p99 in ms)."""

from __future__ import annotations

import random
from functools import cache

import pytest

from labs.sim.capstone import RECOMMENDED_CONTROLS, cold_cache, job_cost, trapped_service
from labs.sim.capstone.latency import (
    WaitHistogram,
    percentile,
    percentiles_ms,
    series_ms,
    window_ms,
)

SHORT = {"horizon_s": 120, "trigger_start_s": 20.0, "trigger_end_s": 40.0, "recover_at_s": 60.0}
WINDOWS = ("before", "during", "after", "last_30s")


@cache
def trapped(**params: object) -> dict:
    return trapped_service(seed=5, **SHORT, **params)


def test_it_takes_the_nearest_rank_percentile():
    assert percentile([10, 20, 30, 40], 50) == 20
    assert percentile([10, 20, 30, 40], 95) == 40
    assert percentile([10, 20, 30, 40], 25) == 10
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([], 99) is None
    with pytest.raises(ValueError, match="p must be"):
        percentile([1.0], 0)


def test_it_gives_milliseconds_per_second_and_per_window():
    per_second = [[0.010, 0.020, 0.030, 0.040], [], [0.5]]
    assert percentiles_ms([0.040, 0.010, 0.030, 0.020]) == {50: 20.0, 95: 40.0, 99: 40.0}
    assert series_ms(per_second, "latency")["latency_p50_ms"] == [20.0, None, 500.0]
    figures = window_ms(per_second, {"first": slice(0, 2), "": slice(None)})
    assert figures["p99_ms_first"] == 40.0 and figures["p50_ms"] == 30.0
    assert window_ms(per_second, {"quiet": slice(1, 2)})["p99_ms_quiet"] is None


def test_a_histogram_gives_exactly_the_percentiles_of_its_waits():
    draw = random.Random(7).random
    waits = [0.0] * 500 + [draw() * 2.5 for _ in range(2000)] + [2.5, 0.00005, 0.00015]
    histogram = WaitHistogram(2.5)
    histogram.add(waits[:1000])
    histogram.add(waits[1000:])
    assert histogram.percentiles_ms() == percentiles_ms(waits)
    for few in ([0.0], [0.0123], [0.001, 0.002, 0.0031]):
        one = WaitHistogram(1.0)
        one.add(few)
        assert one.percentiles_ms() == percentiles_ms(few)
    assert WaitHistogram(1.0).percentiles_ms() == {50: None, 95: None, 99: None}


def test_it_never_counts_an_answer_that_came_after_the_timeout():
    s = trapped()["summary"]
    for window in ("before", "during"):
        assert 0 < s[f"p50_ms_{window}"] <= s[f"p95_ms_{window}"] <= s[f"p99_ms_{window}"] <= 1000


def test_it_has_no_latency_while_nobody_is_answered():
    result = trapped()
    s, series = result["summary"], result["series"]
    assert s["useful_completions"] > 0
    assert s["p99_ms_last_30s"] is None and s["call_p99_ms_last_30s"] is None
    for useful, p99 in zip(series["useful"], series["latency_p99_ms"], strict=True):
        assert (p99 is None) == (useful == 0)


def test_it_brings_p99_back_under_the_timeout_with_the_controls():
    s = trapped(**RECOMMENDED_CONTROLS)["summary"]
    assert s["p99_ms_last_30s"] < 1000
    # The whole call includes the failed attempts and backoff before the answer.
    assert s["call_p99_ms_after"] > s["p99_ms_after"]


def test_it_counts_a_whole_call_at_least_as_long_as_its_last_attempt():
    result = trapped(**RECOMMENDED_CONTROLS)
    s, series = result["summary"], result["series"]
    for window in WINDOWS:
        for p in (50, 95, 99):
            attempt, call = s[f"p{p}_ms_{window}"], s[f"call_p{p}_ms_{window}"]
            assert call >= attempt, (window, p)
    assert len(series["call_latency_p99_ms"]) == SHORT["horizon_s"]


def test_it_makes_call_and_attempt_latency_the_same_without_retries():
    result = trapped(max_attempts=1)
    s, series = result["summary"], result["series"]
    assert series["call_latency_p95_ms"] == series["latency_p95_ms"]
    assert {k: v for k, v in s.items() if k.startswith("call_p")} == {
        f"call_{k}": v for k, v in s.items() if k.startswith("p") and "_ms" in k
    }


def test_it_serves_cache_hits_at_once_and_fetches_within_the_timeout():
    s = cold_cache(horizon_s=30)["summary"]
    assert s["p50_ms"] == 0.0  # most reads are hits
    assert 0 < s["p99_ms_first_10s"] <= 1000
    swamped = cold_cache(
        horizon_s=10, origin_budget=False, coalescing="none", serve_stale=False, key_skew=0.0
    )
    assert swamped["summary"]["p99_ms"] > 5 * s["p99_ms"]
    assert swamped["summary"]["p99_ms"] <= 1000  # slower reads gave up and are not counted


def test_it_waits_exactly_the_work_time_for_a_job_that_finds_a_free_worker():
    # 1 unit at 25 units/s is 40 ms; at 0.1 jobs/s with 4 workers nobody ever queues.
    s = job_cost(cost_ratio=1.0, arrival_rps=0.1, horizon_s=600)["summary"]
    assert s["p50_ms_before"] == s["p99_ms_after"] == 40.0


def test_it_shows_the_expensive_incident_in_job_latency():
    result = job_cost(horizon_s=200)
    s = result["summary"]
    assert s["p50_ms_before"] == 40.0
    assert s["p99_ms_after"] > 20 * s["p99_ms_before"]
    assert len(result["series"]["latency_p99_ms"]) == 200
