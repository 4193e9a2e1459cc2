"""The class results' predictions panel and exports count the hand-ins whose student skipped
the prediction when asked apart from those run where nobody asked (and from the guesses)."""

from __future__ import annotations

import csv
import io

from django.urls import reverse

from labs.runs.models import Run
from labs.runs.predictions import Prediction
from teaching.models import Membership, Submission
from tests.base import DUE, finished_run, make_user


def _class_with_a_guess_two_skips_and_one_unasked(school):
    """alice guessed, bea and carl skipped when asked, dan ran where nobody asked."""
    assignment = school.assignment_a
    for name in ["alice", "bea", "carl", "dan"]:
        student = school.alice if name == "alice" else make_user(name)
        if name != "alice":
            Membership.objects.create(classroom=school.class_a, student=student)
        run = finished_run(student, **assignment.presets)
        if name in ("bea", "carl"):
            Run.objects.filter(pk=run.pk).update(prediction_skipped=True)
        if name == "alice":
            Prediction.objects.create(run=run, figure="peak_backlog", value=500)
        Submission.objects.create(assignment=assignment, student=student, run=run, submitted_at=DUE)
    return assignment


def test_the_panel_counts_skips_apart_from_runs_nobody_asked_about(client, school):
    assignment = _class_with_a_guess_two_skips_and_one_unasked(school)
    client.force_login(school.teacher)
    html = client.get(reverse("assignment-results", args=[assignment.pk])).content.decode()
    assert "1 of 4 hand-ins carry a prediction" in html
    assert ("2 of 4 hand-ins skipped the prediction when asked; run where nobody asked: 1.") in html


def test_the_panel_shows_when_the_class_only_skipped(client, school):
    assignment = school.assignment_a
    run = finished_run(school.alice, **assignment.presets)
    Run.objects.filter(pk=run.pk).update(prediction_skipped=True)
    Submission.objects.create(
        assignment=assignment, student=school.alice, run=run, submitted_at=DUE
    )
    client.force_login(school.teacher)
    html = client.get(reverse("assignment-results", args=[assignment.pk])).content.decode()
    assert "Predictions against the runs" in html
    assert "1 of 1 hand-in skipped the prediction when asked; run where nobody asked: 0." in html


def test_the_csv_says_which_hand_ins_skipped_the_prediction(client, school):
    assignment = _class_with_a_guess_two_skips_and_one_unasked(school)
    client.force_login(school.teacher)
    response = client.get(reverse("assignment-results-csv", args=[assignment.pk]))
    rows = {r["username"]: r for r in csv.DictReader(io.StringIO(response.content.decode()))}
    skipped = {name: rows[name]["prediction skipped"] for name in ["alice", "bea", "carl", "dan"]}
    # A guess or a run nobody asked about: not skipped; the guess column tells those apart.
    assert skipped == {"alice": "False", "bea": "True", "carl": "True", "dan": "False"}
    assert rows["alice"]["prediction: peak_backlog: guess"] == "500"
    assert rows["dan"]["prediction: peak_backlog: guess"] == ""
