"""Assignment 05's pages: the before/after pair, its report and exports, the operator view."""

from __future__ import annotations

import json
from functools import cache

import pytest
from django.urls import reverse

from labs.capstone.pairs import CONTROLS_OFF, pair_params
from labs.management.commands.lab import _as_form_value
from labs.runs.models import Run
from labs.sim.capstone import RECOMMENDED_CONTROLS
from tests.lab_helpers import lab, run

HX = {"HTTP_HX_REQUEST": "true"}


def form_data(**changes) -> dict[str, str]:
    params = lab("trapped-service").defaults() | changes
    return {name: _as_form_value(value) for name, value in params.items()} | {"seed": "5"}


@cache
def results() -> tuple[dict, dict]:
    before, after = pair_params(lab("trapped-service").defaults())
    return run("trapped-service", **before), run("trapped-service", **after)


def finished_pair(owner) -> tuple[Run, Run]:
    before, after = results()
    return tuple(
        Run.objects.create(
            owner=owner,
            lab="trapped-service",
            params=result["params"],
            seed=5,
            status="succeeded",
            result=result,
        )
        for result in (before, after)
    )


def report_url(before: Run, after: Run, name: str = "report") -> str:
    return reverse(name, args=[before.id, after.id])


def test_it_runs_the_pair_with_one_seed_and_opposite_controls(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("report-pair"), form_data())
    before, after = Run.objects.order_by("created_at")
    assert response.status_code == 302
    assert response["Location"] == report_url(before, after)
    assert before.seed == after.seed == 5
    assert all(before.params[name] == off for name, off in CONTROLS_OFF.items())
    assert all(after.params[name] == on for name, on in RECOMMENDED_CONTROLS.items())
    assert (before.owner, after.owner) == (people.alice, people.alice)
    assert sorted(call["args"][0] for call in published) == sorted([str(before.id), str(after.id)])


def test_it_sends_htmx_to_the_report_after_starting_the_pair(client, people, published):
    client.force_login(people.alice)
    response = client.post(reverse("report-pair"), form_data(drop_expired=True), **HX)
    before, after = Run.objects.order_by("created_at")
    assert response["HX-Redirect"] == report_url(before, after)
    assert after.params["drop_expired"] and not after.params["admission_limit"]
    assert not before.params["drop_expired"]


def test_it_shows_a_bad_pair_on_the_form_and_makes_no_run(client, people, published):
    client.force_login(people.alice)
    response = client.post(reverse("report-pair"), form_data(trigger_end_s=10), **HX)
    assert response.status_code == 422
    assert "The trigger must end at or after it starts" in response.content.decode()
    assert Run.objects.count() == 0 and published == []


def test_it_refuses_a_pair_that_would_pass_the_active_run_cap(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 3
    client.force_login(people.alice)
    client.post(reverse("report-pair"), form_data(), **HX)
    response = client.post(reverse("report-pair"), form_data(), **HX)
    assert response.status_code == 429
    assert "This starts 2 runs, and you may have at most 3 going at once" in (
        response.content.decode()
    )
    assert Run.objects.count() == 2


def test_it_sends_an_anonymous_pair_to_the_login_page(client, db, published):
    response = client.post(reverse("report-pair"), form_data())
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert Run.objects.count() == 0


def test_it_offers_the_pair_button_on_the_trapped_service_form_only(client, db, people):
    client.force_login(people.alice)
    trapped = client.get(reverse("lab-detail", args=["trapped-service"])).content.decode()
    assert f'formaction="{reverse("report-pair")}"' in trapped
    other = client.get(reverse("lab-detail", args=["job-cost"])).content.decode()
    assert reverse("report-pair") not in other


def test_it_shows_the_report_of_two_finished_runs(client, people):
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)
    html = client.get(report_url(before, after)).content.decode()
    assert "After the controls went on at 150 s the service recovered at 154 s" in html
    assert "<td>Backlog at the end</td><td>2,008</td><td>14</td>" in html
    assert "Recovery procedure: 5 of 5 steps worked" in html
    assert html.count('<span class="verdict worked">worked</span>') == 5
    assert html.count('class="chart"') == 3 + 5  # three timelines, one chart per step
    assert report_url(before, after, "report-markdown") in html
    assert reverse("run-obligations", args=[after.id]) in html


def test_it_polls_the_report_until_both_runs_finish(client, people):
    before, after = finished_pair(people.alice)
    Run.objects.filter(pk=after.pk).update(status="running", own_result=None)
    client.force_login(people.alice)
    polling = client.get(report_url(before, after), **HX)
    assert polling.status_code == 200
    assert 'hx-trigger="every 1s"' in polling.content.decode()
    assert "HX-Request" in polling["Vary"]
    Run.objects.filter(pk=after.pk).update(status="succeeded", own_result=results()[1])
    done = client.get(report_url(before, after), **HX)
    assert done.status_code == 286 and "hx-trigger" not in done.content.decode()


def test_it_says_why_there_is_no_report_when_a_run_failed(client, people):
    before, after = finished_pair(people.alice)
    Run.objects.filter(pk=after.pk).update(status="failed", error="The lab crashed: boom")
    client.force_login(people.alice)
    html = client.get(report_url(before, after)).content.decode()
    assert "A run of this pair failed, so there is no report: The lab crashed: boom" in html
    assert client.get(report_url(before, after, "report-json")).status_code == 404


def test_it_exports_the_report_as_markdown_and_json(client, people):
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)
    md = client.get(report_url(before, after, "report-markdown"))
    assert md["Content-Type"] == "text/markdown; charset=utf-8"
    assert md["Content-Disposition"].startswith('attachment; filename="report-')
    text = md.content.decode()
    assert "| Backlog at the end | 2,008 | 14 |" in text
    assert f"http://testserver/runs/{after.id}/obligations/" in text
    data = json.loads(client.get(report_url(before, after, "report-json")).content)
    assert data["runs"]["before"]["id"] == str(before.id)
    assert data["drain"]["after"]["estimate_s"] == 167.333
    assert [s["verdict"] for s in data["procedure"]] == ["worked"] * 5


@pytest.mark.parametrize("name", ["report", "report-markdown", "report-json"])
def test_it_hides_a_report_from_another_student(client, people, name):
    before, after = finished_pair(people.alice)
    client.force_login(people.bob)
    assert client.get(report_url(before, after, name)).status_code == 404


def test_it_hides_a_report_that_mixes_in_another_students_run(client, people):
    mine, _ = finished_pair(people.alice)
    _, theirs = finished_pair(people.bob)
    client.force_login(people.alice)
    assert client.get(report_url(mine, theirs)).status_code == 404


def test_it_lets_a_student_pick_two_of_their_runs(client, people):
    before, after = finished_pair(people.alice)
    _, bobs = finished_pair(people.bob)
    client.force_login(people.alice)
    page = client.get(reverse("report-pick"), {"before": before.id}).content.decode()
    assert f'<option value="{before.id}" selected>' in page
    assert str(bobs.id) not in page
    assert "controls: none" in page and "controls: admission limit of 90/s" in page
    chosen = client.get(reverse("report-pick"), {"before": before.id, "after": after.id})
    assert chosen.status_code == 302 and chosen["Location"] == report_url(before, after)
    same = client.get(reverse("report-pick"), {"before": before.id, "after": before.id})
    assert "Pick two different runs." in same.content.decode()
    stolen = client.get(reverse("report-pick"), {"before": before.id, "after": bobs.id})
    assert stolen.status_code == 200 and "Select a valid choice" in stolen.content.decode()


def test_it_shows_the_operator_view_of_a_runs_payments(client, people):
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)
    trapped = client.get(reverse("run-obligations", args=[before.id])).content.decode()
    assert "<td>unknown</td><td>860</td>" in trapped
    assert "Unresolved: someone still has to find the outcome" in trapped
    assert "Showing 25 of 865." in trapped
    assert "<td><code>pay-001426</code></td><td>pending</td><td>caller</td>" in trapped
    freed = client.get(reverse("run-obligations", args=[after.id])).content.decode()
    assert "<td>reconciled</td><td>360</td>" in freed
    assert "Showing 20 of 360." in freed
    assert "<td>reconciled</td><td>payments-reconciliation</td>" in freed
    assert "Unresolved:" not in freed


def test_it_hides_the_operator_view_from_another_student_and_for_other_labs(client, people):
    before, _ = finished_pair(people.alice)
    other = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0)
    client.force_login(people.bob)
    assert client.get(reverse("run-obligations", args=[before.id])).status_code == 404
    client.force_login(people.alice)
    assert client.get(reverse("run-obligations", args=[other.id])).status_code == 404


def test_it_links_a_trapped_run_to_its_operator_view_and_the_report(client, people):
    before, _ = finished_pair(people.alice)
    client.force_login(people.alice)
    html = client.get(before.get_absolute_url()).content.decode()
    assert reverse("run-obligations", args=[before.id]) in html
    assert f"{reverse('report-pick')}?before={before.id}" in html


def test_the_pick_offers_a_bounded_list_and_still_opens_any_visible_run(client, school):
    from datetime import timedelta

    from django.utils import timezone

    from labs.capstone.forms import PICK_LIMIT
    from teaching.models import Submission

    before, after = finished_pair(school.alice)
    Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=after, before_run=before
    )
    start = timezone.now() - timedelta(days=1)
    mine = Run.objects.bulk_create(
        Run(
            owner=school.teacher,
            lab=before.lab,
            params=before.params,
            seed=i,
            status="succeeded",
            created_at=start + timedelta(seconds=i),
        )
        for i in range(PICK_LIMIT + 10)
    )
    client.force_login(school.teacher)
    page = client.get(reverse("report-pick")).content.decode()
    offered = page.count('<option value="') - page.count('<option value=""')
    assert offered == 2 * PICK_LIMIT  # not every run of the school
    assert str(mine[-1].id) in page and str(mine[0].id) not in page
    assert str(before.id) not in page  # a student's: opened from the gradebook instead
    linked = client.get(reverse("report-pick"), {"before": before.id}).content.decode()
    assert f'<option value="{before.id}" selected>' in linked
    chosen = client.get(reverse("report-pick"), {"before": before.id, "after": after.id})
    assert chosen.status_code == 302 and chosen["Location"] == report_url(before, after)
