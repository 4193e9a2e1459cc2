"""Assignment 05's trapped service: the loop that outlives its trigger, and the way out."""

from __future__ import annotations

import json
from functools import cache

import pytest

from labs.sim.capstone import LAB_PARAM_SPECS, RECOMMENDED_CONTROLS, trapped_service
from labs.sim.capstone.obligations import STATES
from labs.sim.capstone.summary import drain_estimate_s
from labs.sim.capstone.trapped_params import PARAM_SPECS, TrappedParams

SEED = 5


@cache
def _run(items: tuple[tuple[str, object], ...], seed: int = SEED) -> dict:
    return trapped_service(seed=seed, **dict(items))


def run(seed: int = SEED, **params: object) -> dict:
    """One run per distinct set of params, shared by the tests that look at it."""
    return _run(tuple(sorted(params.items())), seed)


# A shorter scenario with the same trap, so that the many variations stay quick.
SHORT = {"horizon_s": 150, "trigger_start_s": 20.0, "trigger_end_s": 40.0, "recover_at_s": 80.0}


def short(seed: int = SEED, **params: object) -> dict:
    return run(seed, **{**SHORT, **params})


def test_it_stays_trapped_long_after_the_default_spike_ends():
    result = run()
    s, series = result["summary"], result["series"]
    end = int(TrappedParams().trigger_end_s)
    assert not s["recovered"]
    assert not s["goodput_recovered"]
    # The spike is long gone: new arrivals are back at the base rate ...
    assert sum(series["arrivals"][end + 100 :]) / len(series["arrivals"][end + 100 :]) < 90
    # ... yet 100 s and more later the queue is full of work nobody waits for.
    assert min(series["backlog"][end + 100 :]) >= 1900
    assert min(series["oldest_age_s"][end + 100 :]) > 10
    assert s["goodput_before_rps"] > 75
    assert s["goodput_after_rps"] < 1
    assert s["amplification"] > 2.5
    assert s["wasted_share"] > 0.75


def test_it_drains_once_callers_stop_retrying():
    assert not short()["summary"]["recovered"]
    s = short(max_attempts=1)["summary"]
    assert s["recovered"]
    assert s["amplification"] == 1.0
    assert s["final_backlog"] < 50


def test_it_drains_within_seconds_with_the_recommended_controls():
    s = run(**RECOMMENDED_CONTROLS)["summary"]
    recover_at = TrappedParams().recover_at_s
    assert s["recovered"]
    assert s["goodput_recovered"]
    assert recover_at <= s["recovered_at_s"] <= recover_at + 10
    assert s["actual_drain_s"] <= 10
    assert s["obligations_lost"] == 0
    assert s["obligations_unknown"] == 0
    assert s["obligations_reconciled"] > 0


@pytest.mark.parametrize(
    "controls",
    [{"drop_expired": True}, {"reserve_share": 0.25}],
    ids=["dropping expired reads alone", "reserving workers alone"],
)
def test_it_stays_trapped_with_a_control_that_leaves_the_retries_alone(controls):
    assert not short(**controls)["summary"]["recovered"]


@pytest.mark.parametrize(
    ("spike_rps", "duration_s"),
    [(110.0, 2.0), (200.0, 0.5), (90.0, 30.0)],
    ids=["small", "short", "below capacity"],
)
def test_it_recovers_by_itself_from_a_smaller_or_shorter_trigger(spike_rps, duration_s):
    s = short(spike_rps=spike_rps, trigger_end_s=20.0 + duration_s)["summary"]
    assert s["recovered"]
    assert s["amplification"] < 1.05
    assert s["peak_backlog"] < 200


@pytest.mark.parametrize(
    "trigger",
    [{"slowdown_factor": 2.0}, {"workers_lost": 3}],
    ids=["slowdown", "lost workers"],
)
def test_it_gets_trapped_by_lost_capacity_as_well_as_by_a_spike(trigger):
    s = short(spike_rps=80.0, **trigger)["summary"]
    assert not s["recovered"]
    assert s["amplification"] > 2.5


def test_it_multiplies_attempts_with_every_retrying_layer():
    one = short()["summary"]["amplification"]
    two = short(retry_layers=2)["summary"]["amplification"]
    assert two > 2.5 * one


def test_it_loses_payments_when_expired_work_is_dropped_naively():
    s = short(drop_expired=True, limit_retries=True, drop_payments=True)["summary"]
    assert s["obligations_lost"] > 20
    assert s["obligations_reconciled"] == 0


def test_it_loses_no_payment_when_timed_out_ones_are_reconciled():
    s = short(drop_expired=True, limit_retries=True, reconcile_payments=True)["summary"]
    assert s["obligations_lost"] == 0
    assert s["obligations_unknown"] == 0
    assert s["obligations_reconciled"] > 20
    assert s["charges"] <= s["obligations_total"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        dict(RECOMMENDED_CONTROLS),
        {"drop_expired": True, "drop_payments": True},
        {"drop_expired": True, "reconcile_payments": True, "recover_at_s": 0.0},
        {"discipline": "codel", "drop_payments": True},
        {"admission_limit": True, "payment_share": 0.5},
    ],
    ids=["default", "controls", "naive", "reconcile from start", "codel", "half payments"],
)
def test_it_accounts_for_every_obligation_every_second(params):
    result = short(**params)
    s, series = result["summary"], result["series"]
    assert s["obligations_accounted"]
    assert s["obligations_total"] == sum(s[f"obligations_{state}"] for state in STATES)
    assert s["obligations_total"] > 0
    columns = [series[f"payments_{state}"] for state in STATES]
    per_second = [sum(values) for values in zip(*columns, strict=True)]
    assert per_second == sorted(per_second)  # payments only ever join the ledger
    assert per_second[-1] == s["obligations_total"]
    assert s["charges"] <= s["obligations_total"]


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_it_predicts_the_drain_within_a_quarter_for_constant_job_cost(seed):
    # No retries and a fixed admission rate: backlog / (capacity - arrivals) should hold.
    s = short(seed, max_attempts=1, admission_limit=True, admit_rps=60.0, recover_at_s=40.0)[
        "summary"
    ]
    assert s["drain_estimate_s"] == pytest.approx(s["drain_backlog"] / 40.0)
    assert s["drain_estimate_held"], s["drain_gap"]
    assert abs(s["actual_drain_s"] - s["drain_estimate_s"]) <= 0.25 * s["drain_estimate_s"]
    assert s["drain_gap"] == ""


def test_it_explains_why_the_estimate_misses_when_expired_work_is_dropped():
    s = run(**RECOMMENDED_CONTROLS)["summary"]
    assert not s["drain_estimate_held"]
    assert s["actual_drain_s"] < 0.2 * s["drain_estimate_s"]
    assert "expired work was discarded" in s["drain_gap"]


def test_it_says_never_when_arrivals_outrun_capacity():
    s = run()["summary"]
    assert s["drain_net_rps"] < 0
    assert s["drain_estimate_s"] is None
    assert s["actual_drain_s"] is None
    assert s["drain_gap"].startswith("never drained")


def test_it_reproduces_the_assignments_drain_arithmetic():
    assert drain_estimate_s(600, 20, 50) == 20.0
    assert drain_estimate_s(600, 60, 50) is None


def test_it_caps_retries_by_the_budget():
    series = short(limit_retries=True)["series"]
    start = int(SHORT["recover_at_s"])
    before = slice(start - 30, start)
    assert sum(series["retries"][before]) > 2 * sum(series["arrivals"][before])
    # Retries scheduled before the budget existed still fire in the next few seconds.
    after = slice(start + 5, None)
    initial_bucket = 0.1 * 80 * 10  # retry_budget x base_rps x the 10 s window
    assert sum(series["retries"][after]) <= 0.1 * sum(series["arrivals"][after]) + initial_bucket


def test_it_refuses_above_the_admission_limit_and_reopens_gradually():
    result = short(admission_limit=True, drop_expired=True, limit_retries=True, reopen_ramp_s=30.0)
    limit = result["series"]["admit_limit_rps"]
    start = int(SHORT["recover_at_s"])
    assert limit[start - 1] == 0.0  # no limit before the controls
    assert limit[start] == 90.0
    ramp = [x for x in limit[start:] if x > 0]
    assert ramp == sorted(ramp) and ramp[-1] > 95.0  # rising towards the capacity
    assert limit[-1] == 0.0  # and lifted at the end
    assert sum(result["series"]["rejected"][start : start + 5]) > 0


def test_it_avoids_the_trap_with_codel_and_serves_fresh_callers_with_lifo():
    assert short(discipline="codel")["summary"]["recovered"]
    lifo = short(discipline="lifo")
    assert lifo["summary"]["goodput_recovered"]
    # The oldest requests rot at the bottom of the stack, a minute and more past the timeout.
    assert max(lifo["series"]["oldest_age_s"]) > 60


def test_it_serves_fresh_callers_from_the_reserve_while_the_rest_stays_stuck():
    assert short(reserve_share=0.25)["summary"]["goodput_last_30s_rps"] > 15
    assert short()["summary"]["goodput_last_30s_rps"] < 1


def test_it_repeats_exactly_under_the_same_seed():
    params = {
        "horizon_s": 100,
        "trigger_start_s": 20.0,
        "trigger_end_s": 40.0,
        "recover_at_s": 60.0,
    }
    first = trapped_service(seed=11, **params)
    assert trapped_service(seed=11, **params) == first
    assert trapped_service(seed=12, **params) != first


def test_it_returns_json_with_one_value_per_second_in_every_series():
    result = run()
    json.dumps(result)
    lengths = {name: len(values) for name, values in result["series"].items()}
    assert set(lengths.values()) == {TrappedParams().horizon_s}
    assert result["series"]["second"][:3] == [0, 1, 2]
    assert 0 < len(result["tables"]["obligations"]) <= 80


def test_it_describes_every_param_of_every_lab_for_a_form():
    names = {spec["name"] for spec in PARAM_SPECS}
    assert {"base_rps", "max_attempts", "drop_expired", "discipline"} <= names
    assert set(LAB_PARAM_SPECS) == {"trapped_service", "phase_map", "cold_cache", "job_cost"}
    for lab, specs in LAB_PARAM_SPECS.items():
        json.dumps(specs)
        for spec in specs:
            where = f"{lab}.{spec['name']}"
            assert spec["help"], where
            assert spec["type"] in {"int", "float", "bool", "str"}, where
            if spec["type"] in {"int", "float"}:
                assert spec["min"] <= spec["default"] <= spec["max"], where
            if spec["type"] == "str":
                assert spec["default"] in spec["choices"], where


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"workers": 0}, "workers must be between 1 and 1000"),
        ({"service_ms": 0}, "service_ms must be between 1"),
        ({"jitter": "some"}, "jitter must be one of none, full"),
        ({"drop_expired": "yes"}, "drop_expired must be true or false"),
        ({"trigger_start_s": 80.0, "trigger_end_s": 70.0}, "trigger_end_s must be >="),
        ({"trigger_end_s": 400.0}, "trigger_end_s must be <= horizon_s"),
        ({"workers_lost": 8}, "workers_lost must be < workers"),
        ({"max_attempts": 5, "retry_layers": 3}, r"max_attempts \*\* retry_layers"),
        ({"drop_payments": True, "reconcile_payments": True}, "can't both be on"),
        ({"base_rps": 2000.0}, "expected new requests .* must be <= 300,000, got 546,000"),
        ({"backoff_cap_ms": 50.0}, "backoff_cap_ms must be >= backoff_base_ms"),
        ({"horizon_s": 30.5}, "horizon_s must be a whole number"),
        ({"retries": 3}, "unknown parameter 'retries'"),
    ],
)
def test_it_refuses_bad_params_naming_the_field_and_bound(params, message):
    with pytest.raises(ValueError, match=message):
        trapped_service(**params)


def test_it_refuses_a_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        trapped_service(seed=-1)
