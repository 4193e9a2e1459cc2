"""The phase map: which triggers the service shakes off, and which leave it trapped."""

from __future__ import annotations

import json

import pytest

from labs.sim.capstone import phase_map
from labs.sim.capstone.phase_map import PARAM_SPECS, PhaseMapParams, grid_steps

SMALL_GRID = {
    "spike_min_rps": 110.0,
    "spike_max_rps": 190.0,
    "spike_steps": 2,
    "duration_min_s": 1.0,
    "duration_max_s": 10.0,
    "duration_steps": 2,
}


def test_it_separates_triggers_that_recover_from_those_that_trap():
    result = phase_map(**SMALL_GRID)
    grid = result["tables"]["grid"]
    assert grid["spike_rps"] == [110.0, 190.0]
    assert grid["duration_s"] == [1.0, 10.0]
    # rows: duration; columns: spike. A small short spike passes, a big long one traps.
    assert grid["recovered"][0][0][0] is True  # 110/s for 1 s
    assert grid["recovered"][0][1][1] is False  # 190/s for 10 s
    s = result["summary"]
    assert s["runs"] == 4
    assert s["recovered_runs"] + s["trapped_runs"] == 4
    assert s["timeout_backlog"] == 100.0  # 100 requests/s of capacity x 1 s timeout
    json.dumps(result)


def test_it_keeps_one_row_per_run_in_the_series():
    series = phase_map(**SMALL_GRID)["series"]
    assert series["run"] == [0, 1, 2, 3]
    assert series["excess_requests"] == [10.0, 90.0, 100.0, 900.0]
    assert {len(v) for v in series.values()} == {4}


def test_it_reports_progress_after_every_run():
    seen: list[tuple[int, int]] = []
    phase_map(on_progress=lambda done, total: seen.append((done, total)), **SMALL_GRID)
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_it_applies_other_trapped_service_params_to_every_run():
    grid = {**SMALL_GRID, "map_horizon_s": 120}
    assert phase_map(**grid)["summary"]["trapped_runs"] > 0
    # Without retries nothing feeds the loop: every run drains (given the time to).
    assert phase_map(max_attempts=1, **grid)["summary"]["trapped_runs"] == 0


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"spike_steps": 30, "duration_steps": 30}, "must be <= 400"),
        ({"spike_steps": 20, "duration_steps": 20}, "expected new requests over all runs"),
        ({"spike_min_rps": 200.0, "spike_max_rps": 100.0}, "spike_max_rps must be >="),
        ({"duration_max_s": 100.0}, "map_trigger_start_s \\+ duration_max_s"),
        ({"spike_rps": 150.0}, "spike_rps is set by the grid"),
        ({"workers": 0}, "workers must be between"),
    ],
)
def test_it_refuses_bad_grids(params, message):
    with pytest.raises(ValueError, match=message):
        phase_map(**{**SMALL_GRID, **params})


def test_it_describes_its_grid_params_for_a_form():
    specs = {spec["name"]: spec for spec in PARAM_SPECS}
    assert specs["spike_steps"]["default"] * specs["duration_steps"]["default"] == 100


def test_a_range_between_equal_ends_is_one_value_however_many_steps():
    assert grid_steps(80.0, 80.0, 5) == [80.0]
    assert grid_steps(60.0, 80.0, 3) == [60.0, 70.0, 80.0]
    assert grid_steps(90.0, 80.0, 1) == [90.0]
    grid = PhaseMapParams(base_min_rps=80.0, base_max_rps=80.0, base_steps=2)
    assert grid.bases == [80.0]
    assert grid.expected_requests == PhaseMapParams().expected_requests


def test_one_step_tries_the_low_end_whichever_way_round_the_range_is():
    result = phase_map(**{**SMALL_GRID, "spike_min_rps": 150.0, "spike_max_rps": 100.0,
                          "spike_steps": 1})  # fmt: skip
    assert result["tables"]["grid"]["spike_rps"] == [150.0]
    with pytest.raises(ValueError, match="spike_max_rps must be >="):
        phase_map(**{**SMALL_GRID, "spike_min_rps": 150.0, "spike_max_rps": 100.0})
