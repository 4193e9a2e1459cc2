"""The first move of every slider, either way from the lesson's mark, gives a value the lab
accepts (and, on a lab that re-runs as it moves, one it re-runs): a student who touches a
slider sees the chart answer, not a refusal (issue 34: phase-map, pool-trap, cold-cache).

`value_at` is static/labs/controls.js's `valueAt`, in Python: the positions the browser
maps to values from the spec labs/web/sliders.py writes on the slider."""

from __future__ import annotations

import math

import pytest

from labs.catalogue.entries import LABS
from labs.management.commands.lab import _as_form_value
from labs.runs import drafts
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


# Known to fail today (issue 34 item 7, not done yet): phase-map's lesson values sit at the
# edge of its grid's budget and of a draft's, so most first moves are refused or need Run.
# Not strict: whether its first moves fit the draft budget depends on the cost bound's
# reading of this machine (a fresh clone's passed, this checkout's did not), so it only
# records the known gap. (A count moved below a list that names things by number, such as
# idempotent-charges' payments 2, 4, 4 at 3 messages, is no longer refused: the run leaves
# the numbers past the last out and says so, tests/labs/runners/test_delivery.py.)
KNOWN = {
    *(
        ("phase-map", name)
        for name in (
            "spike_steps", "duration_steps", "base_min_rps", "base_max_rps", "base_steps",
            "map_horizon_s", "max_attempts",
        )
    ),
}  # fmt: skip

CASES = [
    pytest.param(
        lab,
        param.name,
        id=f"{lab.slug}-{param.name}",
        marks=[pytest.mark.xfail(strict=lab.slug != "phase-map", reason="issue 34 item 7")]
        if (lab.slug, param.name) in KNOWN
        else [],
    )
    for lab in LABS
    for param in lab.params
    if slider_for(param) is not None
]


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
    for value in _first_moves(lab, name):
        shown = str(int(value)) if float(value).is_integer() else repr(value)
        form = LabForm(lab, base | {name: shown})
        assert form.is_valid(), f"{name}={shown}: {form.errors.as_text()}"
        if drafts.instant(lab):
            assert drafts.allowed(lab, form.params()), f"{name}={shown} needs Run"
