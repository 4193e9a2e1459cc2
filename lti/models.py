"""What the LMS link keeps beside django-lti's own records (registrations, deployments,
LMS users, courses, resource links): which class a course is, which assignment a link
in the course opens (and its gradebook column), and each score sent back."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from lti_tool.models import LtiContext, LtiResourceLink

from teaching.models import Assignment, Classroom, Submission


class ClassLink(models.Model):
    """An LMS course (an LTI context) is one class of the site."""

    context = models.OneToOneField(LtiContext, on_delete=models.CASCADE, related_name="class_link")
    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="lms_links")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.context} → {self.classroom}"


class AssignmentLink(models.Model):
    """A link placed in the course (by deep linking) that opens an assignment, and the
    LMS gradebook column (AGS line item) its scores go to."""

    resource_link = models.OneToOneField(
        LtiResourceLink, on_delete=models.CASCADE, related_name="assignment_link"
    )
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lms_links")
    lineitem_url = models.URLField(max_length=500, blank=True)
    # This site's address as the launch reached it: the links in a score's comment.
    site = models.URLField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.resource_link} → {self.assignment}"


class ScoreSent(models.Model):
    """One score sent to the LMS gradebook for a hand-in (each regrade sends again)."""

    class Status(models.TextChoices):
        SENT = "sent"
        FAILED = "failed"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="scores_sent")
    lineitem_url = models.URLField(max_length=500)
    lms_user = models.CharField(max_length=255)  # the LMS's id for the student (sub)
    score = models.FloatField(null=True)
    out_of = models.FloatField()
    comment = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices)
    error = models.TextField(blank=True)
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-sent_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.submission_id}: {self.score}/{self.out_of} ({self.status})"
