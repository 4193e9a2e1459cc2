"""The demo: the README's run command leaves a teacher, a class and a graded assignment."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from django.core.management import call_command

from labs.catalogue import get_lab
from labs.figures import Figure
from labs.models import Run
from labs.roles import is_teacher
from teaching.gradebook import build_gradebook
from teaching.models import Assignment, Classroom, Submission


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    # The demo sets real passwords; the real hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=out)
    return out.getvalue()


def test_it_seeds_a_class_an_assignment_and_graded_submissions(db):
    seed()
    classroom = Classroom.objects.get()
    assert is_teacher(classroom.teacher) and classroom.teacher.username == "teacher"
    assert sorted(classroom.students.values_list("username", flat=True)) == [
        "asha",
        "meera",
        "ravi",
    ]
    assignment = Assignment.objects.get()
    assert assignment.lab == "drain"  # the capstone lab is not in this catalogue yet
    assert assignment.locked == ["arrivals", "per_worker"] and len(assignment.criteria) == 4
    book = build_gradebook(classroom, assignment.due_at)
    cells = {row.student.username: row.cells[0] for row in book.rows}
    assert (cells["asha"].passed, cells["ravi"].passed) == (4, 2)
    assert cells["meera"].submission is None
    for name in ("asha", "ravi"):
        assert assignment.mismatch(cells[name].submission.run) == ""


def test_it_can_run_again_without_making_anything_twice(db):
    seed()
    counts = (Classroom.objects.count(), Assignment.objects.count(), Run.objects.count())
    seed()
    assert (Classroom.objects.count(), Assignment.objects.count(), Run.objects.count()) == counts
    assert Submission.objects.count() == 2


def test_it_sets_the_capstone_when_the_catalogue_has_it(db, monkeypatch):
    """With a trapped-service lab, the capstone's checks are used, those it can answer."""
    drain = get_lab("drain")
    capstone = replace(
        drain,
        slug="trapped-service",
        figures=(*drain.figures, Figure("recovered", "Recovered", "bool")),
    )
    labs = {"trapped-service": capstone, "drain": drain}
    monkeypatch.setattr("teaching.management.commands.seed_demo.get_lab", labs.get)
    output = seed()
    assignment = Assignment.objects.get()
    assert (assignment.lab, assignment.title) == ("trapped-service", "Free the trapped service")
    assert assignment.criteria == [
        {"figure": "recovered", "op": "==", "value": True},
        {"figure": "peak_backlog", "op": "<", "value": 1000},
    ]
    assert "Left out the demo check 'obligations_lost == 0'" in output
