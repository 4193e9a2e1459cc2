"""A class experiment and the people in it, kept after it ends as a saved run."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from teaching.models import Classroom

# No 0/O or 1/I, as the class join codes: read aloud or copied from a projector.
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(6))


class Experiment(models.Model):
    """One class experiment: live while it runs, a saved run afterwards."""

    class Scenario(models.TextChoices):
        STORM = "storm", _("Retry storm and the trapped service")
        WORKERS = "workers", _("You are the workers")

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting to start")
        RUNNING = "running", _("Running")
        ENDED = "ended", _("Ended")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=8, unique=True, default=new_code)
    teacher = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    # None when started from a unit page with no class.
    classroom = models.ForeignKey(
        Classroom, null=True, blank=True, on_delete=models.CASCADE, related_name="experiments"
    )
    unit = models.CharField(max_length=40, blank=True)
    scenario = models.CharField(max_length=10, choices=Scenario.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    allow_guests = models.BooleanField(default=False)
    duration_s = models.PositiveIntegerField(default=600)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Kept when it ends: one sample a second, the teacher's moves, the final counts.
    timeline = models.JSONField(default=list, blank=True)
    moves = models.JSONField(default=list, blank=True)
    totals = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One live experiment per class at a time.
            models.UniqueConstraint(
                fields=["classroom"],
                condition=~models.Q(status="ended"),
                name="one_live_experiment_per_class",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_scenario_display()} {self.code}"

    @property
    def run_key(self) -> str:
        """The Redis namespace id of this experiment."""
        return f"cx-{self.pk.hex}"

    @property
    def live(self) -> bool:
        return self.status != self.Status.ENDED


class Participant(models.Model):
    """A phone in the experiment: a signed-in student, or a guest known by a nickname."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="people")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    nickname = models.CharField(max_length=24, blank=True)
    pid = models.CharField(max_length=16, unique=True, blank=True)  # its name in Redis

    class Prediction(models.TextChoices):
        RECOVERS = "recovers", _("It recovers by itself")
        TRAPPED = "trapped", _("It stays stuck")

    prediction = models.CharField(max_length=12, blank=True, choices=Prediction.choices)
    record = models.JSONField(default=dict, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "user"],
                condition=models.Q(user__isnull=False),
                name="one_phone_per_student",
            )
        ]

    def __str__(self) -> str:
        return self.shown_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.pid:
            self.pid = secrets.token_hex(6)
        super().save(*args, **kwargs)

    @property
    def shown_name(self) -> str:
        if self.user is not None:
            return self.user.get_username()
        return self.nickname
