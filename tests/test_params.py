"""Params generated from a model's specs: every spec placed once, units read from the name."""

from __future__ import annotations

import pytest

from labs.catalogue.params import params_from_specs

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
