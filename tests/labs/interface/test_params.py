"""Params generated from a model's specs: every spec placed once, units read from the name."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import LABS, get_lab
from labs.interface.params import Param, params_from_specs
from labs.runs.execution import refusals

SPECS = (
    {"name": "wait_ms", "type": "float", "default": 5.0, "min": 0, "max": 10, "help": "Wait."},
    {"name": "mode", "type": "str", "default": "a", "choices": ["a", "b"], "help": "Mode."},
    {"name": "on", "type": "bool", "default": False, "help": "Switch."},
)


def test_it_builds_params_in_the_layouts_order_and_groups():
    params = params_from_specs(
        SPECS, [("Two", [("on", "On"), ("mode", "Mode")]), ("One", [("wait_ms", "Wait")])]
    )
    assert [(p.name, p.group, p.kind) for p in params] == [
        ("on", "Two", "bool"),
        ("mode", "Two", "choice"),
        ("wait_ms", "One", "float"),
    ]
    wait = params[2]
    assert (wait.default, wait.min, wait.max, wait.unit, wait.help) == (5.0, 0, 10, "ms", "Wait.")
    assert params[1].choices == (("a", "a"), ("b", "b"))


@pytest.mark.parametrize(
    "layout",
    [
        [("G", [("wait_ms", "W"), ("mode", "M")])],  # "on" is missing
        [("G", [("wait_ms", "W"), ("mode", "M"), ("on", "O"), ("off", "X")])],  # no such spec
        [("G", [("wait_ms", "W"), ("mode", "M"), ("on", "O"), ("on", "O")])],  # twice
    ],
)
def test_it_refuses_a_layout_that_does_not_place_every_spec_once(layout):
    with pytest.raises(ValueError, match="every spec once"):
        params_from_specs(SPECS, layout)


def test_every_labs_defaults_pass_its_own_bounds_and_rules():
    assert {lab.slug: refusals(lab, lab.defaults()) for lab in LABS} == {
        lab.slug: {} for lab in LABS
    }


@pytest.mark.parametrize(
    ("param", "value", "why"),
    [
        (Param("n", "N", "int", 1, "", min=1, max=5), 6, "must be 1 to 5, got 6"),
        (Param("n", "N", "int", 1, "", min=1, max=5), 2.5, "must be 1 to 5"),
        (Param("n", "N", "int", 1, "", min=1, max=5), True, "must be 1 to 5"),
        (Param("x", "X", "float", 1.0, "", min=0, max=1), -0.5, "must be 0 to 1, got -0.5"),
        (Param("b", "B", "bool", False, ""), 1, "must be true or false"),
        (Param("c", "C", "choice", "a", "", choices=(("a", "A"),)), "z", "must be one of a"),
        (Param("l", "L", "int_list", [1], "", min=0, max=9, max_items=2), [1, 2, 3], "must be"),
        (Param("l", "L", "int_list", [1], "", min=0, max=9, max_items=2), [10], "got 10"),
    ],
)
def test_a_param_says_why_it_refuses_a_saved_value(param, value, why):
    assert why in param.refusal(value)
    assert param.refusal(param.default) is None


def test_refusals_name_missing_and_unknown_params_then_the_labs_own_rules():
    lab = get_lab("drain")
    params = lab.defaults()
    del params["rule"]
    assert refusals(lab, {**params, "colour": "red"}) == {
        "rule": "missing",
        "__all__": "not parameters of this lab: colour",
    }


def test_a_value_taken_costs_no_words(monkeypatch):
    """A worker checks every param of every run again: the words of a refusal are made only
    for a value refused (they were made for each param, taken or not)."""
    said = []
    monkeypatch.setattr("labs.interface.params.gettext", lambda words: said.append(words) or words)
    lab = get_lab("trapped-service")
    assert all(param.refusal(param.default) is None for param in lab.params)
    assert said == []
    assert Param("n", "N", "int", 1, "", min=1, max=5).refusal(9) == "must be 1 to 5, got 9"
