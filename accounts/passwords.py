"""One-time passwords a teacher hands out on paper, and marking them as one-time."""

from __future__ import annotations

import secrets

from django.db import transaction

from accounts.models import Profile

# Lower case without look-alikes (no l/1, o/0): read off a paper slip and typed on a phone.
ONE_TIME_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ONE_TIME_GROUPS = 3
ONE_TIME_GROUP_LENGTH = 4


def new_one_time_password() -> str:
    """Like 'k7mp-q2xz-4hcw': 12 random characters (about 59 bits), grouped for reading."""
    groups = (
        "".join(secrets.choice(ONE_TIME_ALPHABET) for _ in range(ONE_TIME_GROUP_LENGTH))
        for _ in range(ONE_TIME_GROUPS)
    )
    return "-".join(groups)


def set_one_time_password(user) -> str:
    """Give `user` a new one-time password and require a change at their next login.

    Setting a password ends the person's other sessions (Django checks the hash), so a
    reset also logs out whoever was using the old one.
    """
    password = new_one_time_password()
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        Profile.objects.update_or_create(user=user, defaults={"must_change_password": True})
    return password


def password_changed(user) -> None:
    """The person chose their own password: the one-time one is gone."""
    Profile.objects.filter(user=user, must_change_password=True).update(must_change_password=False)
