"""Pages: lessons are public, runs need an account, bad input never makes a run."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.models import Run
from labs.units import UNITS

HX = {"HTTP_HX_REQUEST": "true"}
GOOD = {
    "arrivals": "50, 800, 800, 800, 200, 50, 50, 50, 50, 50",
    "per_worker": "100",
    "rule": "backlog",
    "fixed_workers": "3",
    "per_waiting": "100",
    "min_workers": "1",
    "max_workers": "10",
}


def test_it_lists_the_four_units_on_the_home_page(client, db):
    html = client.get(reverse("home")).content.decode()
    for unit in UNITS:
        assert reverse("unit-detail", args=[unit.slug]) in html
    assert "Assignment 05" in html and "Lesson 07" in html


@pytest.mark.parametrize("unit", [u.slug for u in UNITS])
def test_it_serves_every_unit_page_without_login(client, db, unit):
    assert client.get(reverse("unit-detail", args=[unit])).status_code == 200


def test_it_answers_404_for_an_unknown_unit_or_lab(client, db):
    assert client.get(reverse("unit-detail", args=["lesson-99"])).status_code == 404
    assert client.get(reverse("lab-detail", args=["nope"])).status_code == 404


def test_it_serves_the_vendored_assets_locally(client, db):
    html = client.get(reverse("lab-detail", args=["drain"])).content.decode()
    assert "/static/vendor/htmx-2.0.11.min.js" in html
    assert "/static/vendor/plotly-4.1.1.min.js" in html
    assert "https://" not in html.split("<body")[0]


def test_it_sends_an_anonymous_run_to_the_login_page(client, db, published):
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    htmx = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert htmx.status_code == 401 and htmx["HX-Redirect"].startswith(reverse("login"))
    assert Run.objects.count() == 0 and published == []


def test_it_creates_a_queued_run_and_enqueues_it_after_commit(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 200
    run = Run.objects.get()
    assert (run.owner, run.lab, run.status) == (people.alice, "drain", "queued")
    assert run.params["arrivals"] == [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
    assert [call["args"] for call in published] == [[str(run.id)]]
    html = response.content.decode()
    assert f'hx-get="{run.get_absolute_url()}"' in html and 'hx-trigger="every 1s"' in html
    assert "HX-Request" in response["Vary"]


def test_it_redirects_a_plain_post_to_the_runs_permalink(client, people, published):
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD)
    assert response.status_code == 302
    assert response["Location"] == Run.objects.get().get_absolute_url()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("arrivals", "50, lots", "is not a number"),
        ("per_worker", "-3", "greater than or equal to 1"),
        ("arrivals", "1000000000", "out of range"),
        ("max_workers", "", "required"),
    ],
)
def test_it_shows_bad_input_on_the_form_and_makes_no_run(
    client, people, published, field, value, message
):
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), {**GOOD, field: value}, **HX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert Run.objects.count() == 0 and published == []


def test_it_says_the_runner_is_offline_when_redis_does_not_answer(client, people, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 503
    assert "runner is offline" in response.content.decode()
    assert Run.objects.count() == 0


def test_it_marks_the_run_failed_if_the_broker_refuses_the_message(
    client, people, monkeypatch, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError

    def refuse(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("labs.dispatch.check_broker", lambda: None)
    monkeypatch.setattr("labs.dispatch.execute_run.apply_async", refuse)
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    run = Run.objects.get()
    assert run.status == "failed" and "offline" in run.error


def test_it_caps_the_runs_a_user_has_going_at_once(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 2
    client.force_login(people.alice)
    for _ in range(2):
        client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 429
    assert "already have 2 runs going" in response.content.decode()
    assert Run.objects.count() == 2


def make_run(owner, **fields) -> Run:
    return Run.objects.create(owner=owner, lab="drain", params=GOOD, seed=0, **fields)


def test_it_hides_a_run_from_another_student(client, people):
    run = make_run(people.alice)
    client.force_login(people.bob)
    assert client.get(run.get_absolute_url()).status_code == 404
    assert client.get(reverse("run-json", args=[run.id])).status_code == 404


def test_it_keeps_polling_a_queued_run_and_stops_with_286_when_done(client, people):
    from labs.catalogue import get_lab
    from labs.execution import run_lab
    from labs.forms import LabForm
    from labs.progress import SilentProgress

    lab = get_lab("drain")
    form = LabForm(lab, GOOD)
    assert form.is_valid()
    run = Run.objects.create(owner=people.alice, lab="drain", params=form.params(), seed=0)
    client.force_login(people.alice)
    polling = client.get(run.get_absolute_url(), **HX)
    assert polling.status_code == 200 and 'hx-trigger="every 1s"' in polling.content.decode()

    result = run_lab(lab, form.params(), 0, SilentProgress())
    Run.objects.filter(pk=run.pk).update(status="succeeded", result=result)
    done = client.get(run.get_absolute_url(), **HX)
    html = done.content.decode()
    assert done.status_code == 286
    assert "hx-trigger" not in html
    assert "The backlog peaked at 800 jobs." in html
    assert 'class="chart"' in html


def test_it_shows_a_failed_runs_error(client, people):
    run = make_run(people.alice, status="failed", error="The lab crashed: boom")
    client.force_login(people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "The lab crashed: boom" in html


def test_it_lists_only_my_runs(client, people):
    mine, theirs = make_run(people.alice), make_run(people.bob)
    client.force_login(people.alice)
    html = client.get(reverse("my-runs")).content.decode()
    assert str(mine.id) in html and str(theirs.id) not in html
