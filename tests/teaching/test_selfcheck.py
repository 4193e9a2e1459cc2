"""A unit's self-check set with an assignment: chosen by the teacher, scored in the gradebook."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.urls import reverse

from lessons.models import Attempt
from lessons.questions import questions_for
from teaching.models import Assignment
from tests.base import DUE

BEFORE = DUE - timedelta(days=1)


def test_it_lets_the_teacher_add_a_units_self_check(client, school, frozen):
    frozen(BEFORE)
    client.force_login(school.teacher)
    data = {
        "title": "Scale on backlog",
        "instructions": "",
        "selfcheck": "lesson-12",
        "due_at": "2031-03-20T09:00",
        "criteria_text": "",
    }
    response = client.post(reverse("assignment-new", args=[school.class_a.pk]) + "?lab=drain", data)
    assert response.status_code == 302
    assert Assignment.objects.get(title="Scale on backlog").selfcheck == "lesson-12"


def test_it_offers_every_units_self_check_on_the_assignment_form(client, school):
    client.force_login(school.teacher)
    page = reverse("assignment-new", args=[school.class_a.pk]) + "?lab=drain"
    html = client.get(page).content.decode()
    assert '<select name="selfcheck"' in html
    for unit in ("lesson-07", "lesson-12", "lesson-13", "assignment-05"):
        assert f'<option value="{unit}">' in html


def test_it_refuses_a_unit_without_a_self_check(client, school, frozen):
    frozen(BEFORE)
    client.force_login(school.teacher)
    data = {"title": "X", "selfcheck": "lesson-99", "due_at": "2031-03-20T09:00"}
    response = client.post(reverse("assignment-new", args=[school.class_a.pk]) + "?lab=drain", data)
    assert response.status_code == 422
    assert not Assignment.objects.filter(title="X").exists()


def test_it_shows_each_students_latest_score_in_the_gradebook_and_csv(client, school, frozen):
    frozen(BEFORE)
    school.assignment_a.selfcheck = "lesson-07"
    school.assignment_a.save()
    total = len(questions_for("lesson-07"))
    Attempt.objects.create(student=school.alice, unit="lesson-07", right=2, total=total)
    Attempt.objects.create(student=school.alice, unit="lesson-07", right=5, total=total)
    Attempt.objects.create(student=school.alice, unit="lesson-13", right=1, total=7)
    client.force_login(school.teacher)
    html = client.get(reverse("gradebook", args=[school.class_a.pk])).content.decode()
    alice_row = html.split(">alice<")[1].split("</tr>")[0]
    assert f"self-check 5/{total}" in alice_row
    rows = list(csv.reader(io.StringIO(
        client.get(reverse("gradebook-csv", args=[school.class_a.pk])).content.decode()
    )))  # fmt: skip
    alice = next(row for row in rows if row[0] == "alice")
    at = rows[0].index(f"{school.assignment_a.title}: self-check right")
    assert alice[at : at + 2] == ["5", str(total)]


def test_it_links_the_student_to_the_self_check(client, school):
    school.assignment_a.selfcheck = "lesson-13"
    school.assignment_a.save()
    client.force_login(school.alice)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    assert reverse("unit-detail", args=["lesson-13"]) + "#self-check" in html
    assert "not tried yet" in html
    Attempt.objects.create(student=school.alice, unit="lesson-13", right=6, total=7)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    assert "your latest score: 6/7" in html


def test_it_names_the_self_check_in_marathi_in_the_gradebook(client, school):
    school.assignment_a.selfcheck = "lesson-12"
    school.assignment_a.save()
    Attempt.objects.create(student=school.alice, unit="lesson-12", right=4, total=6)
    client.force_login(school.teacher)
    client.cookies["django_language"] = "mr"
    html = client.get(reverse("gradebook", args=[school.class_a.pk])).content.decode()
    assert "स्व-चाचणी 4/6" in html
