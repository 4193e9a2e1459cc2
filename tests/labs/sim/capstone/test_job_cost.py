"""Follow-up 2: job costs that vary 100x, and the drain estimate that counts work, not jobs."""

from __future__ import annotations

import json

import pytest

from labs.sim.capstone import job_cost


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_it_predicts_the_drain_from_work_units_not_from_job_count(seed):
    s = job_cost(seed=seed)["summary"]
    assert s["normal_mean_cost_units"] == pytest.approx(2.98)  # 98% at 1 unit, 2% at 100
    assert s["actual_drain_s"] > 300
    assert s["count_estimate_ratio"] < 0.2  # counting jobs says "about 40 s"
    assert 0.8 <= s["work_estimate_ratio"] <= 1.25


def test_it_names_the_oldest_expensive_job_and_when_it_starts():
    result = job_cost()
    s, rows = result["summary"], result["tables"]["oldest_expensive"]
    assert s["oldest_expensive_job"] == rows[0]["job_id"]
    assert rows[0]["cost_units"] == 100.0
    assert rows[0]["age_s"] == max(row["age_s"] for row in rows)
    assert [row["work_ahead_units"] for row in rows] == sorted(r["work_ahead_units"] for r in rows)
    # Work ahead / capacity says when it starts; the run agrees within a job's length.
    assert s["oldest_expensive_started_after_s"] == pytest.approx(
        s["oldest_expensive_starts_in_s"], abs=1.0
    )
    json.dumps(result)


def test_it_leaves_no_backlog_when_costs_do_not_vary():
    s = job_cost(cost_ratio=1.0)["summary"]
    assert s["backlog_jobs_at_estimate"] <= 4
    assert s["oldest_expensive_job"] == ""


def test_it_keeps_equal_length_series():
    series = job_cost(horizon_s=100)["series"]
    assert {len(values) for values in series.values()} == {100}
    assert max(series["backlog_units"]) > 10 * max(series["backlog_jobs"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"workers": 0}, "workers must be between"),
        ({"incident_end_s": 10.0}, "incident_start_s <= incident_end_s"),
        ({"cost_ratio": 20000}, "cost_ratio must be between 1 and 10000"),
        ({"arrival_rps": 1000, "horizon_s": 600}, "arrival_rps \\* horizon_s must be <= 500,000"),
    ],
)
def test_it_refuses_bad_params(params, message):
    with pytest.raises(ValueError, match=message):
        job_cost(**params)
