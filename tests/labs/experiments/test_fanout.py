"""Lesson 07 on the real queue: time against N / (W x R), a dying worker, effects once."""

from __future__ import annotations

import time

import pytest

from labs.experiments.context import ExperimentContext
from labs.experiments.fanout import fanout
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_the_measured_time_follows_the_formula_and_a_crash_costs_one_duplicate_delivery(r):
    seen = []
    result = fanout(
        jobs=90,
        workers=3,
        rate_per_worker=60,
        crashes=1,
        visibility_timeout_s=0.3,
        context=ExperimentContext(on_sample=seen.append, sample_interval_s=0.05),
    )
    s = result["summary"]
    assert s["formula_s"] == 0.5
    assert s["measured_s"] >= s["formula_s"]  # never faster than N / (W x R); how close: bench/
    assert (s["done"], s["lost"], s["crashes"]) == (90, 0, 1)
    assert s["duplicates_delivered"] >= 1
    assert (s["sms_sent"], s["duplicate_effects"]) == (90, 0)
    [crashed] = result["tables"]["crashed_jobs"]
    assert crashed["deliveries"] == 2
    assert crashed["sms_sent"] == 1  # delivered twice, sent once
    assert crashed["redelivered_after_s"] >= 0.299  # not before the visibility timeout
    assert [d["receives"] for d in crashed["delivered"]] == [1, 2]
    assert len(seen) >= 5 and seen[-1]["done"] == 90
    assert_lab_result(r, result)


def test_more_workers_make_it_faster(r):
    slow = fanout(jobs=60, workers=1, rate_per_worker=100, crashes=0)["summary"]
    fast = fanout(jobs=60, workers=4, rate_per_worker=100, crashes=0)["summary"]
    assert slow["formula_s"] == 0.6 and fast["formula_s"] == 0.15
    # Relative, so a loaded machine slows both alike; how close each is to the formula is a
    # speed figure, measured by bench/bench_experiments.py.
    assert fast["measured_s"] < slow["measured_s"]
    assert slow["measured_s"] >= slow["formula_s"] and fast["measured_s"] >= fast["formula_s"]


def test_without_idempotency_the_crash_sends_a_second_sms(r):
    result = fanout(
        jobs=40,
        workers=2,
        rate_per_worker=100,
        crashes=2,
        visibility_timeout_s=0.3,
        idempotent=False,
        seed=5,
    )
    s = result["summary"]
    assert s["crashes"] == 2
    assert [job["sms_sent"] for job in result["tables"]["crashed_jobs"]] == [2, 2]
    # At least the two crashes; a job held past the timeout on a busy machine adds more.
    assert s["duplicate_effects"] >= 2
    assert s["sms_sent"] == 40 + s["duplicate_effects"]


def test_it_stops_when_asked_and_still_cleans_up(r):
    started = time.monotonic()
    result = fanout(
        jobs=400,
        workers=2,
        rate_per_worker=20,
        context=ExperimentContext(should_stop=lambda: time.monotonic() - started > 0.3),
    )
    s = result["summary"]
    assert s["stopped_early"] and s["stop_reason"] == "cancelled"
    assert s["done"] < 400
    assert s["wall_s"] < s["formula_s"]  # well before all 400 could have been sent
    assert_lab_result(r, result)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"jobs": 0}, "jobs"),
        ({"jobs": 5001}, "jobs"),
        ({"workers": 0}, "workers"),
        ({"workers": 33}, "workers"),
        ({"rate_per_worker": 0.1}, "rate_per_worker"),
        (
            {"jobs": 5000, "workers": 1, "rate_per_worker": 1},
            "jobs / \\(workers \\* rate_per_worker\\)",
        ),
        ({"crashes": 11}, "crashes"),
        ({"crash_point": "during_lunch"}, "crash_point"),
        ({"visibility_timeout_s": 0.01}, "visibility_timeout_s"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fanout(**kwargs)
