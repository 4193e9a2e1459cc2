"""Asked for a guess, a student may press "Skip this time" (predict.js): Run then sends
`prediction_skipped=1`, and the run is kept as skipped, so a teacher tells a skip from a run
where nobody asked (JavaScript off, or before the site asked)."""

from __future__ import annotations

from django.urls import reverse

from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.labs.web.test_views import GOOD, HX


def _press_run(client, data, capture) -> tuple[int, Run | None]:
    with capture(execute=False):
        response = client.post(reverse("lab-detail", args=["drain"]), data, **HX)
    return response.status_code, Run.objects.order_by("-created_at").first()


def test_a_run_sent_after_skip_this_time_is_kept_as_skipped(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    status, run = _press_run(
        client, {**GOOD, "prediction_skipped": "1"}, django_capture_on_commit_callbacks
    )
    assert status == 200 and run is not None
    assert run.prediction_skipped
    assert not Prediction.objects.exists()


def test_a_run_nobody_asked_about_or_with_a_guess_is_not_skipped(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    # No JavaScript: the hidden field stays empty, and the form runs as before.
    status, plain = _press_run(
        client, {**GOOD, "prediction_skipped": ""}, django_capture_on_commit_callbacks
    )
    assert status == 200 and plain is not None and not plain.prediction_skipped
    # A guess wins over a skip said earlier in the visit: the run carries the guess.
    status, guessed = _press_run(
        client,
        {**GOOD, "per_worker": "90", "prediction_skipped": "1", "predict-peak_backlog": "400"},
        django_capture_on_commit_callbacks,
    )
    assert status == 200 and guessed is not None and guessed.pk != plain.pk
    assert not guessed.prediction_skipped
    assert list(guessed.predictions.values_list("value", flat=True)) == [400]


def test_the_lab_page_carries_the_ask_and_the_skip_in_marathi(client, people):
    from accounts.models import Profile

    Profile.objects.update_or_create(user=people.alice, defaults={"language": "mr"})
    client.force_login(people.alice)
    html = client.get(reverse("lab-detail", args=["drain"])).content.decode()
    assert 'name="prediction_skipped" value=""' in html
    assert "या वेळी वगळा" in html and 'class="predict-ask"' in html


def test_a_skip_does_not_answer_an_assignment_that_requires_a_guess(client, school, frozen):
    from datetime import timedelta

    from tests.base import DUE

    frozen(DUE - timedelta(days=1))
    assignment = school.assignment_a
    assignment.require_prediction = True
    assignment.save()
    client.force_login(school.alice)
    html = client.get(assignment.get_absolute_url()).content.decode()
    assert "Skip this time" not in html  # the ask offers no skip there
    answer = client.post(
        reverse("assignment-run", args=[assignment.pk]),
        {**GOOD, "prediction_skipped": "1"},
        **HX,
    )
    assert answer.status_code == 422
    assert "This assignment asks for a prediction first" in answer.content.decode()
    assert not Run.objects.exists()


def test_a_before_after_pair_keeps_the_skip_with_its_after_run(client, people, published):
    from tests.labs.capstone.test_views import form_data

    client.force_login(people.alice)
    client.post(reverse("report-pair"), {**form_data(), "prediction_skipped": "1"}, **HX)
    before, after = Run.objects.order_by("created_at")
    assert after.prediction_skipped and not before.prediction_skipped
