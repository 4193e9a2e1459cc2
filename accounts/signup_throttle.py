"""How many accounts a join code may make, and one address: so a code is not an open door.

Counted from the database (accounts made, by their `date_joined`), so every web process on
every machine sees the same count. SIGNUPS_PER_MINUTE and SIGNUPS_PER_HOUR hold for one
address; a class's code has its own, slower limits: a burst of SIGNUPS_PER_CODE_PER_MINUTE
(a row of students typing at once), then SIGNUPS_PER_CODE_PER_HOUR in all, which still lets
a class of 100 join within one lesson but no longer a script 20 a minute (the attack
review's D6: 115 junk accounts in one class in 9 minutes). Accounts waiting for the
teacher's approval count too.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from teaching.models import Classroom, Membership, PendingSignup


def signup_refusal(address: str, classroom: Classroom) -> str:
    """Why another account may not be made now ('' if it may)."""
    now = timezone.now()
    for window, most_here, most_with_code in (
        (timedelta(minutes=1), settings.SIGNUPS_PER_MINUTE, settings.SIGNUPS_PER_CODE_PER_MINUTE),
        (timedelta(hours=1), settings.SIGNUPS_PER_HOUR, settings.SIGNUPS_PER_CODE_PER_HOUR),
    ):
        since = now - window
        from_here = Profile.objects.filter(
            signup_address=address, user__date_joined__gte=since
        ).count()
        with_code = (
            Membership.objects.filter(
                classroom=classroom, origin=Membership.Origin.CODE, student__date_joined__gte=since
            ).count()
            + PendingSignup.objects.filter(
                classroom=classroom, made_here=True, student__date_joined__gte=since
            ).count()
        )
        if from_here >= most_here or with_code >= most_with_code:
            return _(
                "Too many accounts were just made from here or with this code. Wait a few "
                "minutes and try again; for a whole class, your teacher can import a roster."
            )
    return ""


def remember_address(user, address: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"signup_address": address[:64]})
