"""Digits other than 0-9 are refused wherever a teacher or a student types a number
(issue 21): in criteria, rubric points, scores, an operator's control values and an
assignment's seed, as in every lab's parameters (tests/labs/web/test_numeric_input.py). Python's
int() and float() read "٣", "１２" and "१२"; a figure typed so would be shown back or
compared as a number nobody typed in 0-9."""

from __future__ import annotations

import pytest

from labs.capstone.control_panel import ControlForm
from labs.catalogue.entries import LABS
from teaching.criteria import CriteriaError, parse_criteria
from teaching.forms import AssignmentForm
from teaching.handin import FeedbackForm
from teaching.rubric import parse_rubric
from tests.teaching.test_criteria import CAPSTONE
from tests.teaching.test_forms import NOW, assignment_data

OTHER_DIGITS = ["٣", "１２", "१२", "²", "3٣"]


@pytest.mark.parametrize("typed", OTHER_DIGITS)
def test_criteria_refuse_other_digits(typed):
    assert parse_criteria("peak_backlog <= 3", CAPSTONE)
    with pytest.raises(CriteriaError):
        parse_criteria(f"peak_backlog <= {typed}", CAPSTONE)


@pytest.mark.parametrize("typed", OTHER_DIGITS)
def test_rubric_points_refuse_other_digits(typed):
    assert parse_rubric("Names the loop: 3") == [{"item": "Names the loop", "max": 3}]
    with pytest.raises(CriteriaError):
        parse_rubric(f"Names the loop: {typed}")


@pytest.mark.parametrize("typed", OTHER_DIGITS)
def test_scores_refuse_other_digits(typed, school):
    assignment = school.assignment_a
    assignment.rubric = [{"item": "Names the loop", "max": 20}]
    assert FeedbackForm({"score_0": "3"}, assignment=assignment).is_valid()
    form = FeedbackForm({"score_0": typed}, assignment=assignment)
    assert not form.is_valid() and "score_0" in form.errors


@pytest.mark.parametrize("typed", [*OTHER_DIGITS, "٠.١", "0.٥"])
def test_control_values_refuse_other_digits(typed):
    good = {"control": "retry_budget", "state": "on", "value": "0.1"}
    assert ControlForm(good).is_valid()
    form = ControlForm(good | {"value": typed})
    assert not form.is_valid() and "value" in form.errors


@pytest.mark.parametrize("typed", OTHER_DIGITS)
def test_an_assignments_seed_refuses_other_digits(typed, school):
    lab = next(lab for lab in LABS if lab.uses_seed)
    base = {k: v for k, v in assignment_data().items() if not k.startswith(("mode__", "value__"))}
    base["criteria_text"] = ""

    def form(seed: str) -> AssignmentForm:
        data = base | {"mode__seed": "locked", "value__seed": seed}
        return AssignmentForm(data, classroom=school.class_a, lab=lab, now=NOW)

    assert "value__seed" not in form("12").errors
    assert "value__seed" in form(typed).errors
