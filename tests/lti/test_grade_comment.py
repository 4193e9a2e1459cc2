"""The comment a hand-in's score carries to the LMS (`lti.grades.comment_of`) says a guess
given after a result for the same values had been shown, and never calls it right."""

from __future__ import annotations

from labs.runs.predictions import record_shown, save_predictions
from lti.grades import comment_of
from teaching.models import Membership, Submission
from tests.base import DUE, finished_run, make_user


def _hand_in(school, student, *, seen_first: bool) -> Submission:
    """The student's hand-in, its peak guessed exactly (after a run of the same values had
    shown it, with `seen_first`)."""
    presets = school.assignment_a.presets
    if seen_first:
        record_shown(student, finished_run(student, **presets))
    run = finished_run(student, **presets)
    save_predictions(run, {"peak_backlog": run.result["summary"]["peak_backlog"]})
    return Submission.objects.create(
        assignment=school.assignment_a, student=student, run=run, submitted_at=DUE
    )


def test_a_guess_after_a_result_is_not_called_right_in_the_lms_comment(school):
    late = comment_of(_hand_in(school, school.alice, seen_first=True), "http://testserver")
    assert "Prediction peak_backlog: guessed" in late
    assert "(right)" not in late
    assert "given after seeing a result for these values: not counted right" in late


def test_an_exact_guess_before_any_result_is_right_in_the_lms_comment(school):
    carl = make_user("carl")
    Membership.objects.create(classroom=school.class_a, student=carl)
    honest = comment_of(_hand_in(school, carl, seen_first=False), "http://testserver")
    assert "(right)" in honest and "after seeing a result" not in honest
