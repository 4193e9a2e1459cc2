"""What the site remembers about a person beyond Django's `User`."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Profile(models.Model):
    """One per user, made on first need (`Profile.of(user)`), never required to exist."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # Blank: follow the browser (Accept-Language) until the person picks one.
    language = models.CharField(max_length=8, blank=True, default="")
    # Set for accounts a teacher made or reset with a one-time password.
    must_change_password = models.BooleanField(default=False)
    # Where a self-made account was signed up from: sign-up is throttled per address.
    signup_address = models.CharField(max_length=64, blank=True, default="", db_index=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"

    @classmethod
    def of(cls, user) -> Profile:
        profile, _ = cls.objects.get_or_create(user=user)
        return profile


class PasswordReset(models.Model):
    """Who gave whom a one-time password, and through which class: kept for the admins."""

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="password_resets"
    )
    # SET_NULL: the record outlives a teacher's account or class being deleted.
    reset_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="password_resets_done",
    )
    reset_by_username = models.CharField(max_length=150)
    classroom = models.ForeignKey(
        "teaching.Classroom", on_delete=models.SET_NULL, null=True, related_name="password_resets"
    )
    address = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.student} reset by {self.reset_by_username} at {self.at:%Y-%m-%d %H:%M}"
