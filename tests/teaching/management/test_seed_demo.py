"""The demo: the README's run command leaves a teacher, a class and a graded assignment."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from django.core.management import call_command

from labs.capstone.analysis import Analysis
from labs.catalogue.entries import get_lab
from labs.interface.figures import Figure
from labs.roles import is_teacher
from labs.runs.models import Run
from teaching.demo_class import CLASS
from teaching.gradebook.book import build_gradebook
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
    usernames = set(classroom.students.values_list("username", flat=True))
    assert {"asha", "meera", "ravi"} <= usernames and len(usernames) == 3 + len(CLASS)
    assignment = Assignment.objects.get()
    assert assignment.lab == "trapped-service"
    assert assignment.locked == ["trigger_start_s", "trigger_end_s", "spike_rps"]
    assert assignment.is_pair and len(assignment.criteria) == 5 and assignment.rubric_max == 20
    book = build_gradebook(classroom, assignment.due_at)
    cells = {row.student.username: row.cells[0] for row in book.rows}
    # Asha's controls free the service; Ravi handed in the trap twice.
    assert cells["asha"].passed == 5
    ravi = {str(c.criterion): c.passed for c in cells["ravi"].checks}
    assert ravi["before.recovered == false"] and not ravi["after.recovered == true"]
    assert cells["meera"].submission is None
    for name in ("asha", "ravi"):
        submission = cells[name].submission
        assert assignment.mismatch(submission.run) == ""
        assert submission.before_run.seed == submission.run.seed
    asha = cells["asha"].submission
    analysis = Analysis.objects.get(before=asha.before_run_id, after=asha.run_id)
    assert len(analysis.step_list) == 4 and analysis.loop and analysis.followup_job_cost


def test_it_can_run_again_without_making_anything_twice(db):
    seed()
    counts = (Classroom.objects.count(), Assignment.objects.count(), Run.objects.count())
    seed()
    assert (Classroom.objects.count(), Assignment.objects.count(), Run.objects.count()) == counts
    assert Submission.objects.count() == 30 and Analysis.objects.count() == 2


def test_it_falls_back_to_the_drain_lab_without_the_capstone(db, monkeypatch):
    """A catalogue without trapped-service still gets a whole demo, on Lesson 12's lab."""
    labs = {"drain": get_lab("drain")}
    monkeypatch.setattr("teaching.management.commands.seed_demo.get_lab", labs.get)
    seed()
    assignment = Assignment.objects.get()
    assert (assignment.lab, assignment.title) == (
        "drain",
        "Catch the burst sooner · लाट लवकर आटोक्यात आणा",
    )
    book = build_gradebook(assignment.classroom, assignment.due_at)
    cells = {row.student.username: row.cells[0] for row in book.rows}
    assert (cells["asha"].passed, cells["ravi"].passed) == (4, 2)


def test_it_leaves_out_a_check_the_lab_cannot_answer(db, monkeypatch):
    drain = get_lab("drain")
    capstone = replace(
        drain,
        slug="trapped-service",
        figures=(*drain.figures, Figure("recovered", "Recovered", "bool")),
    )
    labs = {"trapped-service": capstone, "drain": drain}
    monkeypatch.setattr("teaching.management.commands.seed_demo.get_lab", labs.get)
    monkeypatch.setattr("teaching.management.commands.seed_demo.Command.submit", lambda *a: None)
    output = seed()
    assignment = Assignment.objects.get()
    assert assignment.criteria == [
        {"figure": "before.recovered", "op": "==", "value": False},
        {"figure": "after.recovered", "op": "==", "value": True},
    ]
    assert "Left out the demo check 'after.obligations_lost == 0'" in output


def test_the_demo_class_looks_like_a_class_on_its_results_page(db):
    """30 hand-ins made by the real model: lines to overlay, spreads, pass rates that
    differ, the lesson's case as the reference, and the runs on other seeds flagged."""
    from django.utils import timezone

    from teaching.class_results.figures import class_results

    seed()
    assignment = Assignment.objects.get()
    results = class_results(assignment, assignment.get_lab(), timezone.now())
    assert len(results.handed_in) == 30 and len(results.entries) == 33
    assert all(90 <= len(e.digest.trace["y"]) <= 150 for e in results.handed_in)
    assert results.reference is not None and results.reference["summary"]["recovered"] is False
    rates = {str(r.criterion): r.passed for r in results.pass_rates}
    assert rates["before.recovered == false"] == 30
    assert 20 <= rates["after.recovered == true"] < 30  # some students only half freed it
    assert results.sections == ["A", "B"] and results.majority_seed == 5
    seeds = {e.label for e in results.flagged if any("seed" in r for r in e.reasons)}
    assert seeds == {"bhavesh", "rutuja", "yash"}
    assert {c.name for c in results.changes} >= {"admission_limit", "limit_retries", "seed"}


def test_the_demo_shows_challenges_met_and_missed(db):
    from django.contrib.auth import get_user_model

    from teaching.challenge_runs import challenges_met

    call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", stdout=io.StringIO())  # again: no second set of runs
    assignment = Assignment.objects.get(lab="trapped-service")
    assert assignment.challenges
    users = get_user_model().objects
    asha, ravi = users.get(username="asha"), users.get(username="ravi")
    met = challenges_met([asha.pk, ravi.pk], [assignment])
    assert met[(asha.pk, assignment.pk)] >= 1  # drain-math within 15 s
    assert met[(ravi.pk, assignment.pk)] == 0  # 17.1 s: a near miss
    assert Run.objects.filter(owner=asha, name="Demo run: a challenge").count() == 2


def test_the_demo_assignment_reads_in_both_languages(db):
    import re

    call_command("seed_demo", stdout=io.StringIO())
    assignment = Assignment.objects.get(lab="trapped-service")
    devanagari = re.compile("[\u0900-\u097f]")
    for text in (assignment.title, assignment.instructions):
        assert devanagari.search(text), text  # a Marathi page shows Marathi
        assert re.search("[A-Za-z]{4}", text), text  # and an English one English


def test_the_demo_class_is_named_in_both_languages_and_an_old_demo_is_renamed(db):
    import re

    from django.contrib.auth.models import User

    from teaching.management.commands.seed_demo import CLASS_NAME, OLD_CLASS_NAME

    teacher = User.objects.create_user("teacher")
    Classroom.objects.create(teacher=teacher, name=OLD_CLASS_NAME)
    call_command("seed_demo", stdout=io.StringIO())
    names = list(
        Classroom.objects.filter(teacher__username="teacher").values_list("name", flat=True)
    )
    assert CLASS_NAME in names and OLD_CLASS_NAME not in names, names
    assert re.search("[\u0900-\u097f]", CLASS_NAME) and "Queues and resilience" in CLASS_NAME
