"""Due dates, extensions, lateness and what makes a run submittable."""

from __future__ import annotations

from datetime import timedelta

import pytest

from teaching.models import (
    JOIN_CODE_ALPHABET,
    JOIN_CODE_LENGTH,
    Classroom,
    Timing,
    new_join_code,
    timing,
)
from tests.base import DUE, finished_run

HOUR = timedelta(hours=1)


@pytest.mark.parametrize(
    ("submitted_at", "now", "expected"),
    [
        (DUE - HOUR, DUE + HOUR, Timing.ON_TIME),
        (DUE, DUE + HOUR, Timing.ON_TIME),  # on the minute counts as on time
        (DUE + HOUR, DUE + 2 * HOUR, Timing.LATE),
        (None, DUE - HOUR, Timing.OPEN),
        (None, DUE + HOUR, Timing.MISSING),
    ],
)
def test_it_tells_on_time_from_late_and_missing(submitted_at, now, expected):
    assert timing(submitted_at, DUE, now) == expected


def test_it_uses_a_later_extension_and_ignores_an_earlier_one(school):
    assignment = school.assignment_a
    assert assignment.due_for(None) == DUE
    assert assignment.due_for(DUE + 24 * HOUR) == DUE + 24 * HOUR
    # The class's date moved past the extension: the student is not worse off.
    assert assignment.due_for(DUE - HOUR) == DUE


def test_it_makes_join_codes_from_an_unambiguous_alphabet(db):
    code = new_join_code()
    assert len(code) == JOIN_CODE_LENGTH and set(code) <= set(JOIN_CODE_ALPHABET)
    assert not set("01OI") & set(JOIN_CODE_ALPHABET)
    assert Classroom._meta.get_field("join_code").default is new_join_code


def test_it_splits_presets_into_locked_and_open(school):
    assignment = school.assignment_a
    assert set(assignment.locked_presets()) == {"arrivals", "per_worker"}
    assert assignment.open_presets() == {"rule": "backlog"}


def test_it_accepts_a_succeeded_run_that_kept_the_locked_presets(school):
    run = finished_run(school.alice, per_waiting=50)
    assert school.assignment_a.mismatch(run) == ""


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"per_worker": 150}, "changed the locked per_worker (set to 100, this run used 150)"),
        ({"arrivals": [800, 800]}, "changed the locked arrivals"),
    ],
)
def test_it_refuses_a_run_that_changed_a_locked_preset(school, changes, reason):
    run = finished_run(school.alice, **changes)
    assert reason in school.assignment_a.mismatch(run)


def test_it_refuses_an_unfinished_run_or_one_of_another_lab(school):
    run = finished_run(school.alice)
    run.status = "failed"
    assert "only a finished, successful run" in school.assignment_a.mismatch(run)
    run.status, run.lab = "succeeded", "retry-storm"
    assert "not of drain" in school.assignment_a.mismatch(run)


def test_it_checks_a_locked_seed_against_the_runs_seed(school):
    assignment = school.assignment_a
    assignment.presets["seed"] = 7
    assignment.locked.append("seed")
    assert "locked seed (set to 7, this run used 3)" in assignment.mismatch(
        finished_run(school.alice, seed=3)
    )
    assert assignment.mismatch(finished_run(school.alice, seed=7)) == ""
