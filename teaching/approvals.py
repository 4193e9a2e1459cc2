"""Approving new sign-ups: with a class's "approve new sign-ups" switch on, whoever uses its
code waits (a `PendingSignup`, not a membership) until its teacher approves or removes them,
in bulk. Not being a member, a waiting account sees none of the class, its assignments or
its labs: every check of the class already asks for a membership (`teaching.access`).

Why: a join code read out in class is soon known outside it, and accounts are cheap (the
attack review's D6: 115 junk accounts landed in one class in 9 minutes, with no bulk way
out). Removing deletes an account that this sign-up made and that is in no class now; an
existing account that asked to join is only refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from teaching.models import Classroom, Membership, PendingSignup


def join_with_code(classroom: Classroom, student, *, made_here: bool = False) -> str:
    """Put `student` in the class, or on its waiting list: "joined", "already" or "waiting"."""
    if Membership.objects.filter(classroom=classroom, student=student).exists():
        return "already"
    if classroom.approve_signups:
        PendingSignup.objects.get_or_create(
            classroom=classroom, student=student, defaults={"made_here": made_here}
        )
        return "waiting"
    _membership, created = Membership.objects.get_or_create(
        classroom=classroom, student=student, defaults={"origin": Membership.Origin.CODE}
    )
    return "joined" if created else "already"


def waiting_words(classroom: Classroom) -> str:
    return _(
        "Your account is waiting for your teacher to let you into %(class)s. Once they "
        "approve it, the class is on this page."
    ) % {"class": classroom}


@dataclass
class Decided:
    approved: int = 0
    refused: int = 0  # existing accounts refused, kept
    deleted: int = 0  # accounts this sign-up made, deleted


@transaction.atomic
def approve(classroom: Classroom, student_ids: list[int]) -> Decided:
    """The waiting students among `student_ids` become members (joined with the code)."""
    waiting = list(
        PendingSignup.objects.select_for_update().filter(
            classroom=classroom, student_id__in=student_ids
        )
    )
    for pending in waiting:
        Membership.objects.get_or_create(
            classroom=classroom,
            student_id=pending.student_id,
            defaults={"origin": Membership.Origin.CODE},
        )
    PendingSignup.objects.filter(pk__in=[p.pk for p in waiting]).delete()
    return Decided(approved=len(waiting))


@transaction.atomic
def remove(classroom: Classroom, student_ids: list[int]) -> Decided:
    """The waiting students among `student_ids` are refused; an account their sign-up made,
    in no class and waiting for no other, is deleted."""
    waiting = list(
        PendingSignup.objects.select_for_update().filter(
            classroom=classroom, student_id__in=student_ids
        )
    )
    PendingSignup.objects.filter(pk__in=[p.pk for p in waiting]).delete()
    made = [p.student_id for p in waiting if p.made_here]
    doomed = (
        get_user_model()
        .objects.filter(pk__in=made, is_staff=False, is_superuser=False)
        .exclude(memberships__isnull=False)
        .exclude(pending_classes__isnull=False)
        .exclude(classrooms_taught__isnull=False)
    )
    deleted = len(list(doomed.values_list("pk", flat=True)))
    get_user_model().objects.filter(pk__in=doomed.values_list("pk", flat=True)).delete()
    return Decided(refused=len(waiting) - deleted, deleted=deleted)
