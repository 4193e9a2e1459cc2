"""The lab form refuses bad input with a message next to the field."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import get_lab
from labs.catalogue.params import Param
from labs.web.forms import LabForm, field_for

DRAIN = get_lab("drain")


def form_with(**changes) -> LabForm:
    data = {
        "arrivals": "50, 800, 800, 800, 200, 50, 50, 50, 50, 50",
        "per_worker": "100",
        "rule": "backlog",
        "fixed_workers": "3",
        "per_waiting": "100",
        "min_workers": "1",
        "max_workers": "10",
    }
    data.update(changes)
    return LabForm(DRAIN, {k: v for k, v in data.items() if v is not None})


def test_it_accepts_the_lessons_defaults():
    form = form_with()
    assert form.is_valid(), form.errors
    assert form.params()["arrivals"] == [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
    assert form.params()["per_worker"] == 100


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("arrivals", "50, eight hundred", "is not a number"),
        ("arrivals", "50,,800", "empty"),
        ("arrivals", "1000000000", "out of range"),
        ("arrivals", ",".join(["1"] * 301), "At most 300 values"),
        ("arrivals", "", "required"),
        ("arrivals", None, "required"),
        ("per_worker", "-5", "greater than or equal to 1"),
        ("per_worker", "abc", "whole number"),
        ("per_worker", "1000000000", "less than or equal to 100000"),
        ("rule", "magic", "Select a valid choice"),
        ("max_workers", None, "required"),
    ],
)
def test_it_puts_a_clear_message_next_to_the_bad_field(field, value, message):
    form = form_with(**{field: value})
    assert not form.is_valid()
    assert message in " ".join(form.errors[field])


def test_it_checks_fields_against_each_other():
    form = form_with(min_workers="12", max_workers="10")
    assert not form.is_valid()
    assert "must not be more than" in form.errors["min_workers"][0]


def test_it_ignores_a_posted_value_for_a_locked_parameter():
    form = LabForm(DRAIN, {"per_worker": "5", **form_with().data}, locked={"per_worker": 100})
    assert form.is_valid(), form.errors
    assert form.params()["per_worker"] == 100


def test_it_shows_whole_floats_without_a_trailing_point_zero():
    timeout = field_for(Param("timeout_ms", "Timeout", "float", 1000.0, "", min=1, max=9000))
    assert str(timeout.initial) == "1000"
    waits = field_for(
        Param("waits_s", "Waits", "float_list", [30.0], "", min=0, max=60, max_items=3)
    )
    assert waits.prepare_value([30.0, 1.0, 0.2]) == "30, 1, 0.2"
