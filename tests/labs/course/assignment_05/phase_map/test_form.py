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
