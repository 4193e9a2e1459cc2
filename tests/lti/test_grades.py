"""Assignments and grades end to end: a real Celery worker sends a hand-in's score to a
real platform's gradebook (lti1p3platform's AGS service checks the worker's token) when
it is handed in, when it is graded, and again on regrade; the comment carries the
prediction and the challenge. The teacher's page answers before the LMS is asked."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.urls import reverse

from labs.runs.predictions import save_predictions
from lti.models import ClassLink, ScoreSent
from teaching.models import Assignment, Submission
from tests.base import DRAIN_CRITERIA, DUE, finished_run
from tests.lti.conftest import LEARNER_1, TEACHER
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
RUBRIC = [{"item": "Explains the backlog", "max": 5}, {"item": "Names the fix", "max": 3}]


@pytest.fixture
def worker(tmp_path, settings):
    queue = new_queue_name("lti")
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue
    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log)
    yield log
    stop_worker(proc)
    forget_queue(queue)


def scores_arrive(platform, line_item: str, n: int, log: Path, timeout_s: float = 60):
    """Wait (polling) until the platform's gradebook holds `n` scores for the column."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = platform.scores.get(line_item, [])
        if len(got) >= n:
            return got
        time.sleep(0.2)
    pytest.fail(f"{len(platform.scores.get(line_item, []))} scores; worker log:\n"
                f"{log.read_text()[-3000:]}\nsent: {list(ScoreSent.objects.values())}")  # fmt: skip


def test_a_score_is_sent_when_graded_and_updated_on_regrade(client, platform, worker):
    platform.launch(client, TEACHER)
    classroom = ClassLink.objects.get().classroom
    assignment = Assignment.objects.create(
        classroom=classroom, title="Drain the burst", lab="drain", criteria=DRAIN_CRITERIA,
        rubric=RUBRIC, challenges=["drain-fewest-workers"], due_at=DUE,
    )  # fmt: skip
    client.logout()
    platform.launch(
        client, LEARNER_1, resource_link="link-a", custom={"assignment": str(assignment.pk)},
        lineitem="li-1",
    )  # fmt: skip
    student = client.get("/classes/").wsgi_request.user
    challenge_run = finished_run(student, lab="drain", max_workers=4)  # meets the challenge
    run = finished_run(student, lab="drain")
    save_predictions(run, {"peak_backlog": 300})
    sub = Submission.objects.create(
        assignment=assignment, student=student, run=run, submitted_at=DUE
    )

    handed_in = scores_arrive(platform, "li-1", 1, worker)[0]
    assert handed_in["userId"] == LEARNER_1.sub and handed_in["gradingProgress"] == "PendingManual"
    assert "scoreGiven" not in handed_in and handed_in["scoreMaximum"] == 8
    assert "Prediction peak_backlog: guessed 300" in handed_in["comment"]
    assert f"met by the run http://testserver/runs/{challenge_run.id}/" in handed_in["comment"]

    client.logout()
    platform.launch(client, TEACHER)
    url = reverse("submission-feedback", args=[sub.pk])
    answer = client.post(url, {"score_0": 4, "score_1": 2, "feedback": "Clear."})
    assert answer.status_code == 302  # the page did not wait for the LMS
    graded = scores_arrive(platform, "li-1", 2, worker)[1]
    assert graded["scoreGiven"] == 6 and graded["gradingProgress"] == "FullyGraded"
    assert "Feedback: Clear." in graded["comment"]

    client.post(url, {"score_0": 5, "score_1": 3, "feedback": "Better."})  # a regrade
    regraded = scores_arrive(platform, "li-1", 3, worker)[2]
    assert regraded["scoreGiven"] == 8 and regraded["scoreMaximum"] == 8
    assert ScoreSent.objects.filter(status="sent").count() == 3


def test_a_student_the_lms_does_not_know_sends_nothing(client, platform):
    """Grading a hand-in whose assignment is not linked in any course asks no worker."""
    from lti.grades import send

    platform.launch(client, TEACHER)
    classroom = ClassLink.objects.get().classroom
    assignment = Assignment.objects.create(
        classroom=classroom, title="Unlinked", lab="drain", criteria=DRAIN_CRITERIA, due_at=DUE
    )
    student = classroom.teacher
    sub = Submission.objects.create(
        assignment=assignment, student=student, run=finished_run(student), submitted_at=DUE
    )
    assert send(sub.pk) == [] and platform.scores == {}
