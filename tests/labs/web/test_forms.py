"""The lab form refuses bad input with a message next to the field."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from labs.catalogue.entries import get_lab
from labs.interface.params import Param
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


# A limit a field shares with others is in its help, in the reader's language. ---------------

DEVANAGARI = re.compile("[\u0900-\u097f]")


def help_of(slug: str, name: str, language: str = "en") -> str:
    with translation.override(language):
        return str(LabForm(get_lab(slug)).fields[name].help_text)


def test_a_cross_field_limit_is_stated_in_the_fields_help_in_both_languages():
    english = help_of("fanout-live", "jobs")
    assert "jobs ÷ (workers × rate) may be at most 40 s" in english
    marathi = help_of("fanout-live", "jobs", "mr")
    assert "40 s" in marathi and DEVANAGARI.search(marathi) and "may be at most" not in marathi
    assert "may be at most" not in help_of("fanout-live", "workers")  # the error names jobs


def test_the_run_budget_is_stated_once_and_the_other_fields_that_count_name_it(settings):
    settings.LAB_RUN_BUDGET_S = 12
    lab = get_lab("trapped-service")
    drivers = lab.cost(lab.defaults()).drivers
    in_order = [p.name for p in lab.params if p.name in drivers]
    first, rest = in_order[0], in_order[1:]
    assert rest
    assert "at most 12 s a run" in help_of("trapped-service", first)
    marathi = help_of("trapped-service", first, "mr")
    assert "12 s" in marathi and "at most 12 s a run" not in marathi
    label = str(lab.params[[p.name for p in lab.params].index(first)].label)
    for name in rest:
        said = help_of("trapped-service", name)
        assert "12 s a run" not in said and f"With “{label}”, this sets" in said, name
    others = [p.name for p in lab.params if p.name not in drivers]
    assert others and not any("12 s a run" in help_of("trapped-service", n) for n in others)


def test_an_experiment_states_the_experiments_budget_not_the_simulations():
    helps = [help_of("trapped-live", p.name) for p in get_lab("trapped-live").params]
    assert any("at most 110 s a run" in h for h in helps)
    assert not any("at most 10 s a run" in h for h in helps)


def test_a_cross_field_refusal_reads_in_marathi():
    data = {
        "jobs": "2000", "workers": "1", "rate_per_worker": "5", "crashes": "1",
        "crash_point": "after_effect", "visibility_timeout_s": "0.5", "idempotent": "on",
    }  # fmt: skip
    with translation.override("mr"):
        form = LabForm(get_lab("fanout-live"), data)
        assert not form.is_valid()
        message = form.errors["jobs"][0]
    assert "400 s" in message and "400.0" not in message and "keep it at most" not in message
    assert DEVANAGARI.search(message)


@pytest.mark.parametrize(
    ("slug", "name", "limit"),
    [
        ("trapped-service", "horizon_s", "MAX_REQUESTS_PER_RUN"),
        ("trapped-live", "horizon_s", "MAX_REQUESTS_PER_RUN"),
        ("trapped-service", "retry_layers", "MAX_ATTEMPTS_PER_CALL"),
        ("job-cost", "arrival_rps", "MAX_JOBS_PER_RUN"),
        ("cold-cache", "offered_rps", "MAX_READS_PER_RUN"),
        ("phase-map", "spike_steps", "MAX_RUNS"),
        ("phase-map", "map_horizon_s", "MAX_GRID_REQUESTS"),
    ],
)
def test_a_capstone_models_total_is_stated_in_the_help_of_the_field_it_refuses(slug, name, limit):
    from labs.runners import capstone_rules
    from labs.text import num

    most = num(getattr(capstone_rules, limit))
    english, marathi = help_of(slug, name), help_of(slug, name, "mr")
    assert f"at most {most}" in english
    assert most in marathi and "at most" not in marathi and DEVANAGARI.search(marathi)
