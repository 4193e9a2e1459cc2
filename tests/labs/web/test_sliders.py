"""The slider beside each number box covers the useful range around the lesson's value."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import LABS, get_lab
from labs.interface.params import Param
from labs.web.form_layout import lay_out, list_presets
from labs.web.forms import LabForm
from labs.web.sliders import slider_for

pytestmark = pytest.mark.nodb


def number(default, low, high, kind="int") -> Param:
    return Param("x", "X", kind, default, "", min=low, max=high)


def test_a_value_that_matters_over_tenfolds_gets_a_log_track_around_the_lesson():
    drain = get_lab("drain")
    per_worker = slider_for(drain.param("per_worker"))  # 100 of 1 to 100,000
    assert (per_worker.scale, per_worker.low, per_worker.high) == ("log", 1, 10_000)
    assert per_worker.positions == 96  # 24 a tenfold: each step about 10 %


def test_a_short_range_is_linear_in_whole_steps():
    attempts = slider_for(get_lab("backoff").param("attempts"))  # 7 of 1 to 20
    assert (attempts.scale, attempts.step, attempts.positions) == ("linear", 1, 19)
    share = slider_for(number(0.05, 0, 1, "float"))
    assert (share.scale, share.step, share.positions) == ("linear", 0.01, 100)


def test_zero_sits_at_the_left_of_a_log_track_that_starts_at_zero():
    fixed = slider_for(get_lab("drain").param("fixed_workers"))  # 3 of 0 to 1,000
    assert fixed.scale == "log" and fixed.zero and fixed.low == 1 and fixed.high == 300
    assert slider_for(number(0.0, 0, 0.9, "float")).scale == "linear"  # no tenfolds to span


def test_a_value_in_its_last_nines_gets_a_track_on_the_distance_below_the_bound():
    shared = slider_for(get_lab("availability").param("shared_pct"))  # 99.9 of 0 to 100
    assert shared.scale == "log-below" and shared.below == 100
    assert shared.low == pytest.approx(0.001) and shared.high == pytest.approx(10)


def test_lists_choices_switches_and_the_seed_get_no_slider():
    drain = get_lab("drain")
    assert slider_for(drain.param("arrivals")) is None
    assert slider_for(drain.param("rule")) is None
    trapped = get_lab("trapped-service")
    assert slider_for(trapped.param("admission_limit")) is None


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.slug)
def test_every_slider_track_lies_within_its_params_bounds(lab):
    for param in lab.params:
        s = slider_for(param)
        if s is None:
            continue
        low, high = (s.below - s.high, s.below - s.low) if s.below else (s.low, s.high)
        assert param.min <= low < high <= param.max, param.name
        assert s.positions >= 1


def test_a_series_list_gets_a_spike_a_ramp_and_steady_presets_within_its_bounds():
    presets = dict(list_presets(get_lab("drain").param("arrivals")))
    assert presets["The lesson's values"] == "50, 800, 800, 800, 200, 50, 50, 50, 50, 50"
    assert presets["A spike"] == "50, 1600, 50, 50, 50, 50, 50, 50, 50, 50"
    assert presets["A ramp"].startswith("50, 133, ") and presets["A ramp"].endswith(", 800")
    assert [w for w, _ in list_presets(get_lab("breaker").param("other_thresholds"))] == [
        "The lesson's values"
    ]


def test_a_long_form_folds_its_middle_groups_unless_something_in_them_changed():
    lab = get_lab("trapped-service")
    groups = lay_out(LabForm(lab))
    assert [(g.title, g.open) for g in groups] == [
        ("Workload", True),
        ("Service", False),
        ("Clients", False),
        ("Trigger", False),
        ("Recovery controls", True),
        ("Randomness", False),
    ]
    changed = lay_out(LabForm(lab, initial={"workers": 4}))
    assert [g.changed for g in changed if g.title == "Service"] == [1]
    assert [g.open for g in changed if g.title == "Service"] == [True]


def test_a_short_form_keeps_every_group_open():
    assert all(g.open for g in lay_out(LabForm(get_lab("drain"))))
