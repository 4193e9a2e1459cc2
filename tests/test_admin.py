"""The admin works for staff: every list, with its filters and search, and a change page."""

from __future__ import annotations

import pytest

from teaching.models import Submission
from tests.base import finished_run, make_user

MODELS = ["classroom", "assignment", "submission", "extension", "membership"]


@pytest.fixture
def staff_client(client, school):
    admin = make_user("root")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=finished_run(school.alice)
    )
    client.force_login(admin)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_it_lists_searches_and_filters_each_model(staff_client, school, model):
    base = f"/admin/teaching/{model}/"
    assert staff_client.get(base).status_code == 200
    assert staff_client.get(base, {"q": "alice"}).status_code == 200


def test_it_opens_an_assignment_with_its_json_read_only(staff_client, school):
    page = staff_client.get(f"/admin/teaching/assignment/{school.assignment_a.pk}/change/")
    assert page.status_code == 200
    assert 'name="criteria"' not in page.content.decode()


def test_it_filters_submissions_by_class(staff_client, school):
    page = staff_client.get(
        "/admin/teaching/submission/", {"assignment__classroom__id__exact": school.class_a.pk}
    )
    assert page.status_code == 200 and "1 submission" in page.content.decode()


def test_it_keeps_the_admin_from_students(client, school):
    client.force_login(school.alice)
    response = client.get("/admin/teaching/classroom/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_it_lists_runs_with_their_names(staff_client):
    assert staff_client.get("/admin/labs/run/", {"q": "drain"}).status_code == 200
