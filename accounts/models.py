"""What the site remembers about a person beyond Django's `User`."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Profile(models.Model):
    """One per user, made on first need (`Profile.of(user)`), never required to exist."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # Blank: follow the browser (Accept-Language) until the person picks one.
    language = models.CharField(max_length=8, blank=True, default="")
    # Set for accounts a teacher made or reset with a one-time password.
    must_change_password = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"profile of {self.user}"

    @classmethod
    def of(cls, user) -> Profile:
        profile, _ = cls.objects.get_or_create(user=user)
        return profile
