"""What makes a class's cached gradebook table stale: every change to one of its cells.

Connected once at start-up (`TeachingConfig.ready` calls `connect`): saving or deleting a
class, assignment, membership, submission or version, extension, a self-check `Attempt`,
a challenge's credit (a draft kept for it) or a user bumps the version of each class it
shows in (`teaching.gradebook.cache.bump`).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save

from lessons.models import Attempt
from teaching.gradebook import cache
from teaching.models import (
    Assignment,
    ChallengeCredit,
    Classroom,
    Extension,
    Membership,
    Submission,
    SubmissionVersion,
)


def _classes_of_student(user_id) -> list[int]:
    return list(
        Membership.objects.filter(student_id=user_id).values_list("classroom_id", flat=True)
    )


def _changed(sender, instance, **kwargs) -> None:
    if sender is Classroom:
        ids = [instance.pk]
    elif sender in (Assignment, Membership):
        ids = [instance.classroom_id]
    elif sender in (Submission, Extension):
        ids = list(
            Assignment.objects.filter(pk=instance.assignment_id).values_list(
                "classroom_id", flat=True
            )
        )
    elif sender is SubmissionVersion:
        ids = list(
            Submission.objects.filter(pk=instance.submission_id).values_list(
                "assignment__classroom_id", flat=True
            )
        )
    elif sender in (Attempt, ChallengeCredit):
        ids = _classes_of_student(instance.student_id)
    else:  # a user: their name or username shows in the table
        ids = _classes_of_student(instance.pk)
    cache.bump(ids)


def connect() -> None:
    senders = (
        Classroom,
        Assignment,
        Membership,
        Submission,
        SubmissionVersion,
        Extension,
        Attempt,
        ChallengeCredit,  # a draft kept for a challenge: the cell's challenges met change
    )
    for sender in (*senders, get_user_model()):
        post_save.connect(_changed, sender=sender, dispatch_uid=f"gradebook-{sender.__name__}")
        post_delete.connect(
            _changed, sender=sender, dispatch_uid=f"gradebook-del-{sender.__name__}"
        )
