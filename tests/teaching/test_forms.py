"""Teaching forms convert and refuse: presets, criteria, due dates, submissions, joins."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.web.forms import LabForm
from teaching.forms import (
    AddStudentForm,
    AssignmentForm,
    ExtensionForm,
    JoinForm,
    SubmitForm,
)
from teaching.models import Assignment
from tests.base import DUE, finished_run, make_user

DRAIN = get_lab("drain")
HOUR = timedelta(hours=1)
NOW = DUE - 24 * HOUR


def assignment_data(**changes) -> dict:
    data = {
        "title": "Drain the burst",
        "instructions": "Catch the burst sooner.",
        "due_at": "2031-03-14T22:30",
        "criteria_text": "left_at_end == 0\npeak_backlog < 800",
        "mode__arrivals": "locked",
        "value__arrivals": "50, 800, 800, 800, 200, 50, 50, 50, 50, 50",
        "mode__per_worker": "locked",
        "value__per_worker": "100",
        "mode__rule": "preset",
        "value__rule": "backlog",
        "mode__max_workers": "free",
        "value__max_workers": "",
    }
    data.update(changes)
    return data


def assignment_form(school, data, **kwargs) -> AssignmentForm:
    return AssignmentForm(data, classroom=school.class_a, lab=DRAIN, now=NOW, **kwargs)


def test_it_saves_presets_locks_criteria_and_an_aware_due_date(school):
    form = assignment_form(school, assignment_data())
    assert form.is_valid(), form.errors
    assignment = form.save()
    assert assignment.presets == {
        "arrivals": [50, 800, 800, 800, 200, 50, 50, 50, 50, 50],
        "per_worker": 100,
        "rule": "backlog",
    }
    assert assignment.locked == ["arrivals", "per_worker"]
    assert assignment.criteria == [
        {"figure": "left_at_end", "op": "==", "value": 0},
        {"figure": "peak_backlog", "op": "<", "value": 800},
    ]
    # Typed in the site's time zone (Asia/Kolkata, +05:30), stored as an aware instant.
    assert timezone.is_aware(assignment.due_at)
    assert assignment.due_at == DUE + timedelta(minutes=0)  # 22:30 IST is 17:00 UTC


def test_it_refuses_unknown_figures_and_nonsense_operators_with_a_message(school):
    form = assignment_form(
        school, assignment_data(criteria_text="peak_backlogg < 800\nleft_at_end => 0")
    )
    assert not form.is_valid()
    errors = form.errors["criteria_text"]
    assert "no figure called 'peak_backlogg'. Did you mean peak_backlog?" in errors[0]
    assert "'=>' is not an operator" in errors[1]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"value__per_worker": ""}, "value__per_worker", "Give a value, or let the student"),
        ({"value__per_worker": "-4"}, "value__per_worker", "greater than or equal to 1"),
        ({"value__arrivals": "50, lots"}, "value__arrivals", "is not a number"),
        ({"mode__rule": "forced"}, "mode__rule", "Select a valid choice"),
        ({"due_at": "2031-03-13T10:00"}, "due_at", "is already past"),
        ({"due_at": "tomorrow"}, "due_at", "Enter a valid date/time"),
        ({"title": ""}, "title", "required"),
    ],
)
def test_it_puts_a_clear_message_next_to_a_bad_field(school, changes, field, message):
    form = assignment_form(school, assignment_data(**changes))
    assert not form.is_valid()
    assert message in " ".join(form.errors[field])


def test_it_checks_locked_values_against_each_other_and_the_defaults(school):
    both = assignment_form(
        school,
        assignment_data(
            mode__min_workers="locked",
            value__min_workers="20",
            mode__max_workers="locked",
            value__max_workers="10",
        ),
    )
    assert not both.is_valid()
    assert "must not be more than" in both.errors["value__min_workers"][0]
    # Only min is preset: the default max (10) is what the student starts with.
    one = assignment_form(
        school, assignment_data(mode__min_workers="locked", value__min_workers="20")
    )
    assert "must not be more than" in one.errors["value__min_workers"][0]


def test_it_blames_a_default_the_teacher_left_alone_in_a_general_message(school):
    picky = replace(DRAIN, check=lambda params: {"fixed_workers": "Too few for this burst."})
    form = AssignmentForm(assignment_data(), classroom=school.class_a, lab=picky, now=NOW)
    assert not form.is_valid()
    assert form.non_field_errors() == [
        "With the lab's default for fixed_workers: Too few for this burst."
    ]


def test_it_ignores_values_of_parameters_left_to_the_student(school):
    form = assignment_form(
        school, assignment_data(mode__max_workers="free", value__max_workers="7")
    )
    assert form.is_valid(), form.errors
    assert "max_workers" not in form.save().presets


def test_it_allows_a_past_due_date_when_editing(school):
    assignment = school.assignment_a
    form = assignment_form(school, assignment_data(due_at="2031-03-13T10:00"), instance=assignment)
    assert form.is_valid(), form.errors


def test_it_shows_an_assignments_presets_and_criteria_when_editing(school):
    form = AssignmentForm(instance=school.assignment_a, classroom=school.class_a, lab=DRAIN)
    assert form["mode__per_worker"].value() == "locked"
    assert form["mode__rule"].value() == "preset"
    assert form["mode__max_workers"].value() == "free"
    assert form["criteria_text"].value().splitlines()[1] == "peak_backlog < 800"


# Submissions ----------------------------------------------------------------------------


def submit_form(school, run, *, now=NOW, due_at=DUE, student=None) -> SubmitForm:
    return SubmitForm(
        {"run": str(run.pk)},
        assignment=school.assignment_a,
        student=student or school.alice,
        due_at=due_at,
        now=now,
    )


def test_it_takes_a_good_run_before_the_due_date(school):
    run = finished_run(school.alice, per_waiting=50)
    form = submit_form(school, run)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["run"] == run


def test_it_refuses_after_the_due_date_and_takes_it_with_an_extension(school):
    run = finished_run(school.alice)
    late = submit_form(school, run, now=DUE + HOUR)
    assert not late.is_valid()
    assert "has passed, so submissions are closed" in late.non_field_errors()[0]
    assert submit_form(school, run, now=DUE + HOUR, due_at=DUE + 2 * HOUR).is_valid()


def test_it_refuses_someone_elses_run(school):
    bobs = finished_run(school.bob)
    form = submit_form(school, bobs)
    assert not form.is_valid()
    assert form.errors["run"] == ["That is not one of your runs of this lab."]


def test_it_refuses_a_run_that_broke_a_locked_preset(school):
    form = submit_form(school, finished_run(school.alice, per_worker=400))
    assert not form.is_valid()
    assert "changed the locked per_worker" in form.errors["run"][0]


def test_it_refuses_a_garbage_run_id(school):
    form = SubmitForm(
        {"run": "not-a-uuid"}, assignment=school.assignment_a, student=school.alice, due_at=DUE
    )
    assert not form.is_valid() and "run" in form.errors


# Joining and adding students -------------------------------------------------------------


def test_it_finds_a_class_by_its_code_however_it_is_typed(school):
    form = JoinForm({"code": " aaaa-2222 "}, student=school.bob)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["code"] == school.class_a


@pytest.mark.parametrize(
    ("code", "message"), [("ZZZZ9999", "No class has this code"), ("", "required")]
)
def test_it_refuses_a_wrong_join_code(school, code, message):
    form = JoinForm({"code": code}, student=school.bob)
    assert not form.is_valid() and message in form.errors["code"][0]


def test_it_stops_a_teacher_joining_their_own_class(school):
    form = JoinForm({"code": "AAAA2222"}, student=school.teacher)
    assert not form.is_valid()
    assert "You teach this class" in form.errors["code"][0]


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("nobody", "No one has the username 'nobody'."),
        ("alice", "alice is already in this class."),
        ("tara", "add students, not yourself"),
    ],
)
def test_it_refuses_to_add_the_wrong_student(school, username, message):
    form = AddStudentForm({"username": username}, classroom=school.class_a)
    assert not form.is_valid() and message in form.errors["username"][0]


def test_it_adds_a_student_by_username(school):
    make_user("carol")
    form = AddStudentForm({"username": "carol"}, classroom=school.class_a)
    assert form.is_valid(), form.errors


# Extensions -----------------------------------------------------------------------------


def test_it_only_extends_students_of_the_class_and_only_later(school):
    a = school.assignment_a
    outsider = ExtensionForm({"student": school.bob.pk, "due_at": "2031-03-20T10:00"}, assignment=a)
    assert outsider.errors["student"] == ["That student is not in this class."]
    earlier = ExtensionForm(
        {"student": school.alice.pk, "due_at": "2031-03-01T10:00"}, assignment=a
    )
    assert "must end after the class's due date" in earlier.errors["due_at"][0]
    good = ExtensionForm({"student": school.alice.pk, "due_at": "2031-03-20T10:00"}, assignment=a)
    assert good.is_valid(), good.errors
    removal = ExtensionForm({"student": school.alice.pk, "due_at": ""}, assignment=a)
    assert removal.is_valid() and removal.cleaned_data["due_at"] is None


# The lab form an assignment builds -------------------------------------------------------


def test_it_keeps_a_lock_even_against_a_form_level_initial():
    form = LabForm(
        DRAIN,
        {"per_worker": "5"},
        initial={"per_worker": 7},
        locked={"per_worker": 100},
    )
    assert form["per_worker"].value() == 100
    form.is_valid()
    assert form.cleaned_data["per_worker"] == 100


def test_it_starts_the_student_from_the_open_presets(school):
    a: Assignment = school.assignment_a
    form = LabForm(DRAIN, initial=a.open_presets(), locked=a.locked_presets())
    assert form["rule"].value() == "backlog"
    assert form.fields["arrivals"].disabled and not form.fields["rule"].disabled
