"""`manage.py lab list` and `lab run` drive the same catalogue as the site."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labs.catalogue.entries import LABS


def run_command(*args: str) -> str:
    out = StringIO()
    call_command("lab", *args, stdout=out)
    return out.getvalue()


def test_it_lists_every_lab_with_its_parameters_as_json():
    listed = json.loads(run_command("list", "--json"))
    assert [lab["slug"] for lab in listed] == [lab.slug for lab in LABS]
    drain = next(lab for lab in listed if lab["slug"] == "drain")
    per_worker = next(p for p in drain["params"] if p["name"] == "per_worker")
    assert per_worker == {
        "name": "per_worker",
        "label": "Jobs one worker finishes per second",
        "type": "int",
        "default": 100,
        "help": per_worker["help"],
        "min": 1,
        "max": 100_000,
        "unit": "jobs/s",
    }


def test_it_runs_a_lab_and_prints_the_lessons_figures():
    result = json.loads(run_command("run", "drain", "--json"))
    assert set(result) == {
        "lab",
        "params",
        "seed",
        "summary",
        "series",
        "series_order",
        "tables",
        "tables_order",
    }
    assert result["summary"]["peak_backlog"] == 800
    assert result["summary"]["most_workers"] == 8
    assert result["summary"]["left_at_end"] == 0
    assert result["series"]["backlog"] == [0, 700, 800, 800, 200, 50, 0, 0, 0, 0]


def test_it_applies_set_overrides_through_the_form():
    result = json.loads(run_command("run", "drain", "--set", "rule=fixed", "--json"))
    assert result["summary"]["peak_backlog"] == 1500
    assert result["summary"]["left_at_end"] == 150


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "nope"), "No lab 'nope'"),
        (("run", "drain", "--set", "arrivals=1,x"), "is not a number"),
        (("run", "drain", "--set", "colour=red"), "no parameter 'colour'"),
        (("run", "drain", "--set", "rule"), "NAME=VALUE"),
    ],
)
def test_it_refuses_bad_input_with_a_reason(args, message):
    with pytest.raises(CommandError, match=message):
        run_command(*args)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("fanout",), {"fastest_min": 8.3, "workers_for_deadline": 28}),
        (("busy-minute",), {"backlog_after_spell": 30_000, "clear_after_spell_s": 12}),
        (("at-least-once",), {"deliveries": 4, "plain_sent": 4, "idempotent_sent": 3}),
        (("drain-compare",), {"rules": 5, "rules_left_behind": 1}),
        (("timeouts",), {"most_stuck": 60_000, "fewest_stuck": 400, "stuck_at_timeout": 2_000}),
        (("backoff", "--seed", "3"), {"none_total_ms": 9_500, "last_wait_ms": 3_200}),
        (("retry-storm", "--seed", "123"), {"busiest_slot": 81, "busiest_slot_no_jitter": 500}),
        (("breaker",), {"failed": 7, "fast_fail": 27, "first_ok_s": 34}),
        (("degradation",), {"error_share": 0.0, "error_share_without_fallback": 0.5}),
        (("idempotent-charges",), {"deliveries": 7, "plain_charges": 7, "idempotent_charges": 4}),
        (("poison-messages",), {"made": 8, "dlq": 2, "receives": 14}),
        (("availability",), {"most_copies_pct": 99.9999}),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else "",
)
def test_it_runs_every_lesson_lab_from_the_command_line(args, expected):
    result = json.loads(run_command("run", *args, "--json"))
    assert result["lab"] == args[0]
    assert {key: result["summary"][key] for key in expected} == expected


def test_it_applies_the_labs_own_cross_field_check():
    with pytest.raises(CommandError, match="The outage must end after it starts"):
        run_command("run", "breaker", "--set", "down_until_s=0")


def test_it_uses_the_forms_default_seed_when_none_is_given():
    result = json.loads(run_command("run", "retry-storm", "--json"))
    again = json.loads(run_command("run", "retry-storm", "--seed", "123", "--json"))
    assert result["seed"] == 123
    assert result["summary"] == again["summary"]


def test_a_models_refusal_is_a_sentence_not_a_traceback(monkeypatch):
    from labs.runs.execution import ParamsRefused

    def refuse(*args, **kwargs):
        raise ParamsRefused({"spike_steps": "spike_steps * duration_steps must be <= 400"})

    monkeypatch.setattr("labs.management.commands.lab.run_lab", refuse)
    with pytest.raises(CommandError, match="The lab refused these parameters: spike_steps"):
        call_command("lab", "run", "drain")
