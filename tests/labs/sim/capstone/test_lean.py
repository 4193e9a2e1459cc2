"""A lean run (no payments ledger, no per-answer waits: what the phase map runs) gives every
other figure exactly as a full run does, compiled or in the pure-Python reference."""

from __future__ import annotations

import importlib

import pytest

from labs.sim.capstone import engine, fast
from labs.sim.capstone.engine import SERIES
from labs.sim.capstone.trapped_params import TrappedParams
from tests.labs.sim.capstone.test_fast import SCENARIOS, SHORT, comparable

QUEUE_SERIES = [name for name in SERIES if not name.startswith("payments_")]


def queue_figures(raw: dict) -> dict:
    return {
        "series": {name: raw["series"][name] for name in QUEUE_SERIES},
        **{k: raw[k] for k in ("events", "snapshot", "drained_at_s", "work")},
    }


@pytest.mark.parametrize("seed", [0, 12345])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_lean_run_keeps_every_queue_figure_and_agrees_with_the_reference(scenario, seed):
    p = TrappedParams(**{**SHORT, **SCENARIOS[scenario]})
    full = engine.simulate(p, seed)
    lean = engine.simulate(p, seed, lean=True)
    assert queue_figures(lean) == queue_figures(full)
    assert lean["waits_s"] == {"attempt": [], "call": []}
    assert lean["ledger"].total == 0
    assert comparable(fast.simulate(p, seed, lean=True)) == comparable(lean)


def test_the_phase_map_is_the_same_whether_its_runs_are_lean_or_not(monkeypatch):
    grid = {"spike_steps": 4, "duration_steps": 3, "map_horizon_s": 40}
    # The module, not the function the package exports under the same name.
    module = importlib.import_module("labs.sim.capstone.phase_map")
    lean = module.phase_map(seed=7, **grid)
    monkeypatch.setattr(module, "simulate", lambda p, seed: fast.simulate(p, seed))
    assert module.phase_map(seed=7, **grid) == lean
    assert 0 < lean["summary"]["trapped_runs"] < lean["summary"]["runs"]
