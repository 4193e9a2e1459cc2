"""`manage.py lab list` and `lab run` drive the same catalogue as the site."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labs.catalogue import LABS


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
