"""The compiled loop reads the waits' percentiles in C (`figures`): exactly the figures the
pure-Python reference reads from its lists, so the capstone lab's result does not change."""

from __future__ import annotations

import json

import pytest

from labs.sim.capstone import engine, fast, trapped
from labs.sim.capstone.latency import SecondWaits, wait_figures
from labs.sim.capstone.trapped_params import TrappedParams
from tests.labs.sim.capstone.compiled import skip_unless_built_current
from tests.labs.sim.capstone.test_fast import SCENARIOS, SHORT

skip_unless_built_current()

# Windows as the summary asks for them, and the odd ones: empty, past the end, the whole run.
WINDOWS = {
    "": slice(None),
    "before": slice(0, 15),
    "during": slice(15, 35),
    "after": slice(35, 90),
    "last_30s": slice(60, 90),
    "empty": slice(40, 40),
    "past_the_end": slice(85, 500),
    "backwards": slice(50, 10),
}


@pytest.mark.parametrize("seed", [0, 5, 12345])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_waits_figures_read_in_c_are_the_reference_lists_figures(scenario, seed):
    p = TrappedParams(**{**SHORT, **SCENARIOS[scenario]})
    compiled = fast.simulate(p, seed, figures=True)["waits_s"]
    reference = engine.simulate(p, seed)["waits_s"]
    for kind in ("attempt", "call"):
        ours, theirs = compiled[kind], SecondWaits(reference[kind])
        assert not isinstance(ours, SecondWaits)  # read in C, not wrapped lists
        assert len(ours) == len(reference[kind])
        assert ours.series_ms("x") == theirs.series_ms("x")
        assert ours.window_ms(WINDOWS, "y_") == theirs.window_ms(WINDOWS, "y_")
        assert [sorted(s) for s in ours.lists()] == [sorted(s) for s in reference[kind]]


def test_the_capstone_labs_result_is_the_same_compiled_or_not(monkeypatch):
    """The whole result, written as JSON (every digit, every key in order)."""
    params = {**SHORT, "recover_at_s": 45.0, "drop_expired": True, "reconcile_payments": True}
    compiled = json.dumps(trapped.trapped_service(seed=3, **params))
    monkeypatch.setattr(fast, "_compiled", None)
    assert json.dumps(trapped.trapped_service(seed=3, **params)) == compiled


def test_a_module_built_before_figures_gives_lists_read_the_same_way(monkeypatch):
    """`./dev` rebuilds the module once the .pyx is newer; until then the lists are wrapped."""
    p = TrappedParams(**SHORT)
    now = fast.simulate(p, 5, figures=True)["waits_s"]["attempt"]
    monkeypatch.setattr(fast, "_TAKES_FIGURES", False)
    before = fast.simulate(p, 5, figures=True)["waits_s"]["attempt"]
    assert isinstance(before, SecondWaits)
    assert before.series_ms("x") == now.series_ms("x")


def test_lists_and_figures_are_read_alike():
    per_second = [[0.01, 0.03, 0.02], [], [0.5]]
    assert wait_figures(per_second).series_ms("x") == SecondWaits(per_second).series_ms("x")
    figures = SecondWaits(per_second)
    assert wait_figures(figures) is figures
