"""Whose account a teacher answers for: the only ones whose password they may reset.

A one-time password from a teacher replaces the student's own, so it hands the account,
with all its work in every class, to whoever holds the slip. A teacher may therefore reset
an account only when their class brought it into being or the student chose the class
(roster import, join code), and only when the student is in no class of another teacher:
otherwise that other class's work would be handed over too. Admins reset anyone, in the
admin. Every reset is recorded (`PasswordReset`).
"""

from __future__ import annotations

from axes.utils import reset as axes_reset
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from accounts.models import PasswordReset
from accounts.passwords import set_one_time_password
from accounts.throttle import client_address
from labs.roles import TEACHERS_GROUP, is_teacher
from teaching.models import Classroom, Membership

RESETTABLE_ORIGINS = (Membership.Origin.ROSTER, Membership.Origin.CODE)


def students_in_other_classes(teacher, student_ids) -> set[int]:
    """Those of `student_ids` who are also in a class `teacher` does not teach (one query)."""
    return set(
        Membership.objects.filter(student_id__in=list(student_ids))
        .exclude(classroom__teacher=teacher)
        .values_list("student_id", flat=True)
    )


def teachers_among(student_ids) -> set[int]:
    """Those of `student_ids` who are teachers (one query)."""
    return set(
        get_user_model()
        .objects.filter(pk__in=list(student_ids), groups__name=TEACHERS_GROUP)
        .values_list("pk", flat=True)
    )


def reset_refusal(membership: Membership, *, in_other_class: bool, teaches: bool) -> str:
    """Why the class's teacher may not reset this student's password ('' if they may)."""
    student = membership.student
    if student.is_staff or student.is_superuser or teaches:
        return _("This account is not a student's: an admin can reset it.")
    if membership.origin not in RESETTABLE_ORIGINS:
        return _(
            "This account was not made by this class and did not join with its code: "
            "only an admin can reset its password."
        )
    if in_other_class:
        return _(
            "This student is also in a class another teacher runs: only an admin can "
            "reset their password."
        )
    return ""


def refusal_for(classroom: Classroom, membership: Membership) -> str:
    others = students_in_other_classes(classroom.teacher, [membership.student_id])
    return reset_refusal(
        membership,
        in_other_class=membership.student_id in others,
        teaches=is_teacher(membership.student),
    )


def reset_password(request, classroom: Classroom, student) -> str:
    """Give `student` a one-time password and record who did it; the caller checked the right."""
    password = set_one_time_password(student)
    # A new slip also lifts the lock a student's own failed logins put on their username.
    axes_reset(username=student.get_username())
    PasswordReset.objects.create(
        student=student,
        reset_by=request.user,
        reset_by_username=request.user.get_username(),
        classroom=classroom,
        address=client_address(request)[:64],
    )
    return password
