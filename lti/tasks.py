"""The LMS calls that must not hold a teacher's page: a score sent back (AGS)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="lti.send_score", ignore_result=True)
def send_score(submission_id: int) -> int:
    """Send one hand-in's score to the LMS; the number of columns it reached."""
    from lti.grades import send
    from lti.models import ScoreSent

    return sum(s.status == ScoreSent.Status.SENT for s in send(submission_id))
