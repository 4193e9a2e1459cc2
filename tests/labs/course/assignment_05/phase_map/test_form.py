"""The phase-map form accepts exactly what its model accepts: no run fails on its grid.

Grids are drawn at random within the form's bounds; each one the form accepts goes
through the model with its simulation replaced by a flat series, so every check the
model makes on the grid and on every cell of it runs, without minutes of simulating.
"""

from __future__ import annotations

import importlib
import random

import pytest

from tests.lab_helpers import form, lab

GRIDS = 300
# The module, not the function the package exports under the same name.
model = importlib.import_module("labs.sim.capstone.phase_map")


def flat_series(p, seed):
    seconds = int(p.horizon_s)
    zeros = [0] * seconds
    return {"series": {"oldest_age_s": [0.0] * seconds, "arrivals": [1] * seconds,
                       "retries": zeros, "backlog": zeros}}  # fmt: skip


def random_grid(rng: random.Random) -> dict[str, str]:
    """The defaults with a few fields redrawn, skewed towards each field's low end (u
    cubed) and now and then at the top: the corners are where forms go wrong."""
    out = {}
    for param in lab("phase-map").params:
        if param.kind not in ("int", "float") or rng.random() < 0.6:
            continue
        u = 1.0 if rng.random() < 0.1 else rng.random() ** 3
        value = param.min + (param.max - param.min) * u
        out[param.name] = str(round(value)) if param.kind == "int" else f"{value:.1f}"
    defaults = lab("phase-map").defaults()
    for low, high in (("spike_min_rps", "spike_max_rps"), ("duration_min_s", "duration_max_s"),
                      ("base_min_rps", "base_max_rps")):  # fmt: skip
        a, b = out.get(low, str(defaults[low])), out.get(high, str(defaults[high]))
        if float(a) > float(b):
            out[low], out[high] = b, a
    return out


def test_every_grid_the_form_accepts_the_model_runs(monkeypatch):
    monkeypatch.setattr(model, "simulate", flat_series)
    rng = random.Random(2026)
    accepted = refused = 0
    for _ in range(GRIDS):
        changes = random_grid(rng)
        filled = form("phase-map", **changes)
        filled.data = filled.data | {"seed": "5"}
        if not filled.is_valid():
            refused += 1
            continue
        accepted += 1
        try:
            # The runner's own box (ten seeds) is not the model's: it repeats the model.
            grid = {k: v for k, v in filled.params().items() if k != "ten_seeds"}
            model.phase_map(seed=5, **grid)
        except ValueError as exc:
            pytest.fail(f"the form accepted {changes} but the model refused: {exc}")
    assert accepted > 10 and refused > 10  # both sides of the line were tried


def test_a_grid_over_the_request_budget_is_refused_at_the_form():
    filled = form(
        "phase-map",
        spike_steps=20,
        duration_steps=20,
        base_steps=1,
        map_horizon_s=600,
        base_min_rps=400,
        base_max_rps=400,
    )
    filled.data = filled.data | {"seed": "5"}
    assert not filled.is_valid()
    assert "requests" in str(filled.errors) or "worker" in str(filled.errors)


def test_a_range_is_refused_the_wrong_way_round_only_when_it_has_two_steps_or_more():
    # The lesson's one normal load (80 to 80): either slider's first move is taken.
    assert form("phase-map", base_min_rps=89).is_valid()
    assert form("phase-map", base_max_rps=74).is_valid()
    assert form("phase-map", base_min_rps=89, base_steps=2).errors["base_max_rps"] == [
        "The highest normal load must be at least the lowest (89)."
    ]


def test_steps_between_equal_ends_count_as_one_value_against_the_grids_limits():
    # Two normal loads of 80/s would double the lesson's grid past 1,000,000 requests; they
    # are one load, so the grid, its limits and its cost bound are the lesson's.
    chosen = lab("phase-map")
    two = form("phase-map", base_steps=2)
    assert two.is_valid(), two.errors
    assert chosen.cost(two.params()).seconds == chosen.cost(chosen.defaults()).seconds
    assert not form("phase-map", base_steps=2, base_max_rps=81).is_valid()  # two loads


def test_the_biggest_run_checked_is_the_one_the_grid_tries():
    # With one step a range tries its low end alone: a high end no run of the grid may
    # hold (a spike of 50,000/s, one lasting past the run's end) is not refused for it.
    one_spike = {"duration_steps": 1, "duration_min_s": 10, "spike_max_rps": 50000}
    assert form("phase-map", **one_spike, spike_steps=1).is_valid()
    assert "300,000" in str(form("phase-map", **one_spike, spike_steps=2).errors)
    assert form("phase-map", duration_steps=1, duration_max_s=100).is_valid()
    assert "would end at 105 s" in str(
        form("phase-map", duration_steps=2, duration_max_s=100).errors["duration_max_s"]
    )
