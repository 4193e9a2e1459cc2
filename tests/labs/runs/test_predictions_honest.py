"""A prediction is honest only if it came before any result for those values (issue 39,
item 5): a guess made after a draft or a run with the same values showed the figure is
marked "after seeing a result", never counted right, and left out of the class's panel."""

from __future__ import annotations

from django.urls import reverse

from labs.runs.models import Run
from labs.runs.predictions import Prediction, record_shown, seen_before
from teaching.models import Membership, Submission
from tests.base import DUE, finished_run, make_user
from tests.labs.web.test_views import GOOD, HX


def _post_and_run(client, data, capture) -> Run:
    from labs.runs.tasks import execute_run

    with capture(execute=True):
        response = client.post(reverse("lab-detail", args=["drain"]), data, **HX)
    assert response.status_code == 200, response.content.decode()[:2000]
    made = Run.objects.order_by("-created_at").first()
    assert made is not None
    execute_run.run(str(made.pk))
    made.refresh_from_db()
    return made


def test_a_guess_after_seeing_the_result_for_those_values_is_never_counted_right(
    client, school, published, django_capture_on_commit_callbacks
):
    assignment = school.assignment_a
    assignment.require_prediction = True
    assignment.save()
    client.force_login(school.alice)
    # The student moves the controls: a draft's answer shows the figure (as drafts.js lands it).
    shown = _post_and_run(client, GOOD, django_capture_on_commit_callbacks)
    Run.objects.filter(pk=shown.pk).update(draft=True)
    client.get(reverse("run-detail", args=[shown.pk]), **HX)
    shown.refresh_from_db()
    peak = shown.result["summary"]["peak_backlog"]

    # Then "predicts" exactly that, and runs the same values.
    made = _post_and_run(
        client, {**GOOD, "predict-peak_backlog": str(peak)}, django_capture_on_commit_callbacks
    )
    guess = Prediction.objects.get(run=made)
    assert guess.after_result and guess.value == peak
    html = client.get(made.get_absolute_url()).content.decode()
    assert f"You expected {peak:,}; it was {peak:,}" in html
    assert "after seeing a result" in html and "as you expected" not in html
    assert "so it is not counted right" in html

    # Handed in on the assignment that asks for a prediction, beside an honest classmate's.
    Submission.objects.create(
        assignment=assignment, student=school.alice, run=made, submitted_at=DUE
    )
    ravi = make_user("ravi")
    Membership.objects.create(classroom=school.class_a, student=ravi)
    honest = finished_run(ravi, **assignment.presets)
    Prediction.objects.create(
        run=honest, figure="peak_backlog", value=honest.result["summary"]["peak_backlog"]
    )
    Submission.objects.create(assignment=assignment, student=ravi, run=honest, submitted_at=DUE)
    client.force_login(school.teacher)
    page = client.get(reverse("assignment-results", args=[assignment.pk])).content.decode()
    assert "1 of 2 hand-ins carry a prediction; 1 was right." in page


def test_a_guess_for_other_values_or_before_any_result_is_honest(school):
    alice = school.alice
    made = finished_run(alice)
    assert not seen_before(made)  # nothing shown yet
    other = finished_run(alice, per_waiting=50)
    record_shown(alice, other)
    assert not seen_before(made)  # another setting's result says nothing about this one
    record_shown(make_user("ravi"), made)  # not ravi's run: nothing recorded
    assert not seen_before(made)
    record_shown(alice, made)
    record_shown(alice, made)  # the first sight is kept, once
    assert seen_before(made)
