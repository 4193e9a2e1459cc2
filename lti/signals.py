"""A hand-in saved (handed in, graded, regraded) whose assignment is linked to an LMS
column: its score goes to the LMS, from a worker, once the save has committed."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from teaching.models import Submission

# What a save must touch to change the score or its comment.
SCORED = {"scores", "feedback", "feedback_at", "run", "before_run", "version", "submitted_at"}


@receiver(post_save, sender=Submission, dispatch_uid="lti-send-score")
def score_changed(sender, instance: Submission, created: bool, update_fields=None, **kwargs):
    if update_fields is not None and not SCORED.intersection(update_fields):
        return
    from lti.models import AssignmentLink

    if not AssignmentLink.objects.filter(assignment_id=instance.assignment_id).exists():
        return
    from lti.tasks import send_score

    transaction.on_commit(
        lambda: send_score.apply_async(args=[instance.pk], queue=settings.LAB_QUEUE)
    )
