"""A student's answers to a unit's self-check, kept so a teacher's gradebook can show them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

# A student may try again as often as they like; older tries are not needed.
KEPT_ATTEMPTS = 20


class Attempt(models.Model):
    """One submitted self-check. The latest one per student and unit is the one graded.

    Saving one makes the cached gradebook of each of the student's classes stale
    (`teaching.gradebook.staleness`, a signal: lessons ranks below teaching).
    """

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="selfcheck_attempts"
    )
    unit = models.SlugField(max_length=32)
    answers = models.JSONField(default=dict)  # {question key: what the student typed}
    right = models.PositiveSmallIntegerField()
    total = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["student", "unit", "created_at"])]

    def __str__(self) -> str:
        return f"{self.student} on {self.unit}: {self.right}/{self.total}"


def latest_attempts(students, units) -> dict[tuple[int, str], Attempt]:
    """The latest attempt of each (student, unit), in one query however many were made."""
    newest = (
        Attempt.objects.filter(student__in=students, unit__in=units)
        .values("student_id", "unit")
        .annotate(newest=models.Max("pk"))
        .values("newest")
    )
    rows = Attempt.objects.filter(pk__in=newest).only(
        "student_id", "unit", "right", "total", "created_at"
    )
    return {(a.student_id, a.unit): a for a in rows}


def keep_recent(student, unit: str) -> None:
    """Forget all but the last KEPT_ATTEMPTS of a student's tries at one unit."""
    old = Attempt.objects.filter(student=student, unit=unit).values_list("pk", flat=True)[
        KEPT_ATTEMPTS:
    ]
    Attempt.objects.filter(pk__in=list(old)).delete()
