"""Common random numbers: the controls change what happens to callers, never who calls."""

from __future__ import annotations

import pytest

from labs.sim.capstone import RECOMMENDED_CONTROLS, cold_cache, job_cost, trapped_service
from labs.sim.capstone.obligations import STATES
from labs.sim.capstone.streams import stream

SHORT = {"horizon_s": 120, "trigger_start_s": 20.0, "trigger_end_s": 40.0, "recover_at_s": 60.0}


def payments_known(series: dict) -> list[int]:
    """Payments the ledger has seen by the end of each second (every state together)."""
    columns = [series[f"payments_{state}"] for state in STATES]
    return [sum(values) for values in zip(*columns, strict=True)]


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize(
    "controls",
    [
        dict(RECOMMENDED_CONTROLS),
        {"drop_expired": True, "limit_retries": True, "drop_payments": True},
        {"discipline": "lifo"},
        {"max_attempts": 1},
    ],
    ids=["recommended", "naive drop", "lifo", "no retries"],
)
def test_it_sends_the_same_callers_whatever_the_controls(seed, controls):
    before = trapped_service(seed=seed, **SHORT)
    after = trapped_service(seed=seed, **SHORT, **controls)
    assert after["series"]["arrivals"] == before["series"]["arrivals"]
    assert payments_known(after["series"]) == payments_known(before["series"])
    assert after["summary"]["original_requests"] == before["summary"]["original_requests"]
    # ... and the controls did change what happened to those callers.
    assert after["series"]["retries"] != before["series"]["retries"]


def test_it_sends_the_same_costs_whatever_the_controls():
    params = {**SHORT, "cost_spread": 100.0}
    before = trapped_service(seed=5, **params)
    after = trapped_service(seed=5, **params, **RECOMMENDED_CONTROLS)
    # work_queued sums the queued callers' costs; before the controls both runs are the same.
    start = int(SHORT["recover_at_s"])
    assert after["series"]["work_queued"][:start] == before["series"]["work_queued"][:start]


def test_it_sends_other_callers_under_another_seed():
    assert (
        trapped_service(seed=6, **SHORT)["series"]["arrivals"]
        != trapped_service(seed=5, **SHORT)["series"]["arrivals"]
    )


@pytest.mark.parametrize(
    "controls",
    [
        {"coalescing": "instance"},
        {"coalescing": "none", "origin_budget": False},
        {"serve_stale": False, "ttl_jitter": 0.5},
    ],
    ids=["per-instance coalescing", "no protection", "no stale, jittered ttl"],
)
def test_it_offers_the_same_reads_to_a_cold_cache_whatever_the_controls(controls):
    before = cold_cache(horizon_s=40)
    after = cold_cache(horizon_s=40, **controls)
    assert after["series"]["offered"] == before["series"]["offered"]
    assert after["series"]["origin_fetches"] != before["series"]["origin_fetches"]


def test_it_sends_the_same_jobs_whatever_the_number_of_workers():
    before = job_cost(horizon_s=120)
    after = job_cost(horizon_s=120, workers=6)
    assert after["series"]["arrivals"] == before["series"]["arrivals"]
    assert after["series"]["backlog_jobs"] != before["series"]["backlog_jobs"]


def test_each_purpose_has_its_own_repeatable_stream():
    draws = {purpose: stream(5, purpose).random() for purpose in ("arrivals", "service")}
    assert draws["arrivals"] != draws["service"]
    assert stream(5, "arrivals").random() == draws["arrivals"]
    with pytest.raises(ValueError, match="purpose must be one of"):
        stream(5, "weather")
