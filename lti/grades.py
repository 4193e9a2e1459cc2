"""Assignments and grades (AGS): a hand-in's score sent to the LMS gradebook.

Sent when a hand-in is made or graded, and again on every regrade, from a Celery task
(`lti.tasks.send_score`) so no teacher's page waits on the LMS. The score is the rubric's
(out of its most) when the assignment has a rubric, else the criteria passed (out of the
criteria); the comment carries what the assignment asked beyond the run: each prediction
(guessed, the run gave, right or not, or given after a result for those values had been
shown and so never right) and each challenge met or missed, with the run.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiUser
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.grade import Grade
from pylti1p3.service_connector import ServiceConnector

from labs.catalogue.prediction import said_value
from lti.models import AssignmentLink, ScoreSent
from teaching.criteria import evaluate
from teaching.evidence import evidence_for
from teaching.gradebook.book import summary_of
from teaching.models import Submission

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def score_of(submission: Submission) -> tuple[float | None, float, bool]:
    """(score, out of, fully graded)."""
    assignment = submission.assignment
    if assignment.rubric:
        return submission.score, float(assignment.rubric_max), submission.score is not None
    checks = evaluate(assignment.checks(), summary_of(submission))
    return float(sum(c.passed for c in checks)), float(len(checks) or 1), True


def comment_of(submission: Submission, site: str) -> str:
    """The evidence in a few plain lines (English: the LMS shows it as it is)."""
    evidence = evidence_for(submission)
    lines = []
    for g in evidence.predictions:
        if not g.made:
            continue
        mark = "right" if g.right else "wrong"
        if g.after_result:
            mark = "given after seeing a result for these values: not counted right"
        lines.append(
            f"Prediction {g.prompt.figure}: guessed {said_value(g.guess)}, "
            f"the run gave {said_value(g.outcome)} ({mark})."
        )
    for s in evidence.challenges:
        if s.met and s.attempt is not None:
            url = site + reverse("run-detail", args=[s.attempt.run_id])
            lines.append(f"Challenge {s.challenge.slug}: met by the run {url}")
        else:
            lines.append(f"Challenge {s.challenge.slug}: not met yet.")
    if submission.assignment.selfcheck and evidence.selfcheck is not None:
        lines.append(f"Self-check: {evidence.selfcheck.right}/{evidence.selfcheck.total}.")
    if submission.feedback:
        lines.append(f"Feedback: {submission.feedback}")
    lines.append(f"Hand-in: {site}{submission.get_absolute_url()}")
    return "\n".join(lines)


def send(submission_id: int) -> list[ScoreSent]:
    """Send the hand-in's score to each LMS column its assignment is linked to."""
    submission = (
        Submission.objects.select_related("assignment", "student", "run", "before_run")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None:
        return []
    links = (
        AssignmentLink.objects.filter(assignment=submission.assignment)
        .exclude(lineitem_url="")
        .select_related("resource_link__context__deployment__registration")
    )
    sent = []
    for link in links:
        registration = link.resource_link.context.deployment.registration
        lms_user = (
            LtiUser.objects.filter(registration=registration, auth_user=submission.student)
            .values_list("sub", flat=True)
            .first()
        )
        if lms_user is None:
            continue  # not someone the LMS knows: nothing to send
        sent.append(_send_one(submission, link.lineitem_url, registration, lms_user, link.site))
    return sent


def _send_one(submission, lineitem_url: str, registration, lms_user: str, site: str) -> ScoreSent:
    score, out_of, graded = score_of(submission)
    comment = comment_of(submission, site)
    grade = (
        Grade()
        .set_score_maximum(out_of)
        .set_timestamp(timezone.now().isoformat())
        .set_activity_progress("Submitted")
        .set_grading_progress("FullyGraded" if graded else "PendingManual")
        .set_user_id(lms_user)
        .set_comment(comment)
    )
    if score is not None:
        grade.set_score_given(score)
    service = AssignmentsGradesService(
        ServiceConnector(registration.to_registration()),
        {"scope": [SCORE_SCOPE], "lineitem": lineitem_url},
    )
    record: dict[str, Any] = {
        "submission": submission,
        "lineitem_url": lineitem_url,
        "lms_user": lms_user,
        "score": score,
        "out_of": out_of,
        "comment": comment,
    }
    try:
        service.put_grade(grade)
    except Exception as exc:  # noqa: BLE001 - the LMS's answer, kept for the admin
        return ScoreSent.objects.create(**record, status=ScoreSent.Status.FAILED, error=str(exc))
    return ScoreSent.objects.create(**record, status=ScoreSent.Status.SENT)
