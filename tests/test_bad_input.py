"""Crafted and malformed requests get a 4xx with a reason, never a 500."""

from __future__ import annotations

import pytest

from tests.base import finished_run

HUGE = "9" * 30  # beyond any database integer


@pytest.mark.parametrize(
    ("method", "path", "data", "expected"),
    [
        ("get", f"/classes/{HUGE}/", None, 404),
        ("get", f"/classes/{HUGE}/gradebook/", None, 404),
        ("get", f"/assignments/{HUGE}/", None, 404),
        ("post", f"/assignments/{HUGE}/submit/", {"run": "x"}, 404),
        ("get", f"/submissions/{HUGE}/", None, 404),
        ("get", "/runs/compare/?run=&run=", None, 400),
        ("get", "/runs/compare/?run=zzz&run=0", None, 400),
        ("get", "/runs/?lab=%00", None, 400),
        ("post", "/assignments/{a}/submit/", {"run": ""}, 422),
        ("post", "/assignments/{a}/submit/", {"run": "not-a-uuid"}, 422),
        ("post", "/assignments/{a}/run/", {"per_waiting": "1e999"}, 422),
        ("post", "/classes/join/", {"code": "x" * 500}, 422),
        ("post", "/classes/join/", {}, 422),
    ],
)
def test_it_answers_crafted_requests_with_a_reason(client, school, method, path, data, expected):
    client.force_login(school.alice)
    path = path.format(a=school.assignment_a.pk)
    response = getattr(client, method)(path, data or {})
    assert response.status_code == expected


@pytest.mark.parametrize(
    ("method", "path", "data", "expected"),
    [
        ("get", "/classes/{c}/assignments/new/?lab=nope", None, 404),
        ("post", "/classes/{c}/assignments/new/", {"title": "x"}, 400),
        ("post", "/classes/{c}/assignments/new/?lab=drain", {}, 422),
        ("post", "/classes/{c}/assignments/new/?lab=drain", {"due_at": "2031-02-30T10:00"}, 422),
        ("post", "/classes/{c}/students/", {"username": "\x00"}, 422),
        ("post", f"/classes/{{c}}/students/{HUGE}/remove/", {}, 404),
        ("post", "/assignments/{a}/extensions/", {"student": HUGE, "due_at": "x"}, 422),
        ("post", "/assignments/{a}/edit/", {"criteria_text": "x" * 5000}, 422),
    ],
)
def test_it_answers_a_teachers_crafted_requests_with_a_reason(
    client, school, method, path, data, expected
):
    client.force_login(school.teacher)
    path = path.format(c=school.class_a.pk, a=school.assignment_a.pk)
    response = getattr(client, method)(path, data or {})
    assert response.status_code == expected


def test_it_shows_a_submitted_run_of_a_lab_that_left_the_catalogue(client, school):
    from labs.runs.models import Run
    from teaching.models import Submission

    run = finished_run(school.alice)
    submission = Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=run
    )
    Run.objects.filter(pk=run.pk).update(lab="retired-lab")
    school.assignment_a.lab = "retired-lab"
    school.assignment_a.save()
    client.force_login(school.teacher)
    assert client.get(submission.get_absolute_url()).status_code == 200
    assert client.get(school.assignment_a.get_absolute_url()).status_code == 200
    assert client.get(run.get_absolute_url()).status_code == 200
    rerun = client.post(f"/runs/{run.pk}/rerun/")
    assert rerun.status_code == 409 and "no longer exists" in rerun.content.decode()
    edit = client.get(f"/assignments/{school.assignment_a.pk}/edit/")
    assert edit.status_code == 409
