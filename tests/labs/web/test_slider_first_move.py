"""The first move of every slider, either way from the lesson's mark, gives a value the lab
accepts (and, on a lab that re-runs as it moves, one it re-runs): a student who touches a
slider sees the chart answer, not a refusal (issue 34: phase-map, pool-trap, cold-cache).
Where a draft cannot afford the move, the test says which move, exactly (`NEEDS_RUN`).

`value_at` is static/labs/controls.js's `valueAt`, in Python: the positions the browser
maps to values from the spec labs/web/sliders.py writes on the slider."""

from __future__ import annotations

import math

import pytest

from labs.catalogue.entries import LABS, get_lab
from labs.management.commands.lab import _as_form_value
from labs.runs import admission, drafts
from labs.web.forms import LabForm
from labs.web.sliders import Slider, slider_for

pytestmark = pytest.mark.nodb


def _clean(x: float) -> float:
    return float(f"{x:.12g}")


def _sig2(x: float) -> float:
    if x == 0:
        return 0.0
    p = 10 ** (math.floor(math.log10(abs(x))) - 1)
    return _clean(round(x / p) * p)


def _log_at(s: Slider, q: int, m: int) -> float:
    if s.zero and q == 0:
        return 0.0
    k, last = (q - 1, m - 1) if s.zero else (q, m)
    return s.low * (s.high / s.low) ** (k / last if last else 0)


def value_at(s: Slider, p: int) -> float:
    if not s.log:
        if p <= 0:
            return s.low
        if p >= s.positions:
            return s.high
        raw = s.low + p * (s.high - s.low) / s.positions
        return _clean(min(s.high, max(s.low, round(raw / s.step) * s.step)))
    if s.below is not None:
        gap = _sig2(_log_at(s, s.positions - p, s.positions))
        places = max(0, 1 - math.floor(math.log10(gap))) if gap else 0
        return round(s.below - gap, places)
    v = _sig2(_log_at(s, p, s.positions))
    return float(round(v)) if s.whole else v


def position_of(s: Slider, value: float) -> int:
    return min(range(s.positions + 1), key=lambda p: abs(value_at(s, p) - value))


# First moves a draft cannot afford: the lesson's phase map is bounded at 0.97 s of a
# worker's time (labs.sim.capstone.cost), just under the quick queue's 1 s, so one more
# spike size or duration, 5 s more per run, a normal load of 89/s or a fourth attempt puts
# the map over it. These run when Run is pressed (under the 10 s budget), and the page says
# so as the slider moves ("press Run to start it": tests/labs/runs/test_drafts.py).
NEEDS_RUN = {
    ("phase-map", "spike_steps"): {11},
    ("phase-map", "duration_steps"): {11},
    ("phase-map", "base_min_rps"): {89},
    ("phase-map", "map_horizon_s"): {65},
    ("phase-map", "max_attempts"): {4},
}

CASES = [
    pytest.param(lab, param.name, id=f"{lab.slug}-{param.name}")
    for lab in LABS
    for param in lab.params
    if slider_for(param) is not None
]


@pytest.fixture(autouse=True)
def _the_sites_own_bounds(settings):
    """The run budget and the quick queue's line as `.env.example` sets them, whatever this
    machine's environment says: with the cost bounds counted from the params (no timing),
    which first move needs Run is then the same on every machine."""
    settings.LAB_RUN_BUDGET_S = 10
    settings.LAB_HEAVY_FROM_S = 1


def _first_moves(lab, name):
    param = lab.param(name)
    s = slider_for(param)
    at = position_of(s, float(param.default))
    for p in (at - 1, at + 1):
        if 0 <= p <= s.positions:
            yield value_at(s, p)


@pytest.mark.parametrize(("lab", "name"), CASES)
def test_the_first_move_of_a_slider_gives_a_value_the_lab_takes(lab, name):
    base = {p.name: _as_form_value(p.default) for p in lab.params}
    if lab.uses_seed:
        base["seed"] = str(lab.default_seed)
    heavy = NEEDS_RUN.get((lab.slug, name), set())
    for value in _first_moves(lab, name):
        shown = str(int(value)) if float(value).is_integer() else repr(value)
        form = LabForm(lab, base | {name: shown})
        assert form.is_valid(), f"{name}={shown}: {form.errors.as_text()}"
        if not drafts.instant(lab):
            continue
        params = form.params()
        if value in heavy:
            assert not drafts.allowed(lab, params), f"{name}={shown} runs as a draft now"
            assert admission.over_budget(lab, params) is None, f"Run refuses {name}={shown}"
        else:
            assert drafts.allowed(lab, params), f"{name}={shown} needs Run"


def test_every_move_said_to_need_run_is_a_first_move_of_an_instant_lab():
    for (slug, name), values in NEEDS_RUN.items():
        lab = get_lab(slug)
        assert lab is not None and drafts.instant(lab)
        assert values <= set(_first_moves(lab, name)), (slug, name)
