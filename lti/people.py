"""Who an LMS launch is on the site, and which class its course is.

An LMS person (django-lti's `LtiUser`: the platform's `sub` under one registration) is one
account here: the account it was linked to before, or a new one made at its first launch
(a username from the name as the roster import makes it, `accounts.romanise`, and no
password: they come in through the LMS). An instructor of the course becomes the teacher of
the course's class (made at the first instructor launch, named after the course); a
learner becomes a student of it. The roster (NRPS) fills the class the same way.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from lti_tool.models import LtiContext, LtiUser

from accounts.romanise import romanised
from labs.roles import TEACHERS_GROUP
from lti.models import ClassLink
from teaching.models import Classroom, Membership

FALLBACK = "lms.student"


def _username_for(lti_user: LtiUser) -> str:
    name = lti_user.name or " ".join(p for p in (lti_user.given_name, lti_user.family_name) if p)
    base = ".".join(romanised(name))[:30].strip(".") or FALLBACK
    User = get_user_model()
    taken = {
        u.lower()
        for u in User.objects.filter(username__istartswith=base).values_list("username", flat=True)
    }
    candidate, n = base, 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{base}{n}"
    return candidate


def account_for(lti_user: LtiUser) -> Any:
    """The site account of an LMS person: the linked one, or a new one (no password)."""
    if lti_user.auth_user_id:
        return lti_user.auth_user
    User = get_user_model()
    for _attempt in range(3):  # two first launches at once may pick the same name
        try:
            with transaction.atomic():
                user = User(
                    username=_username_for(lti_user),
                    first_name=(lti_user.given_name or "")[:150],
                    last_name=(lti_user.family_name or "")[:150],
                )
                if not user.first_name and lti_user.name:
                    user.first_name = lti_user.name[:150]
                user.set_unusable_password()
                user.save()
        except IntegrityError:
            continue
        lti_user.auth_user = user
        lti_user.save(update_fields=["auth_user"])
        return user
    raise IntegrityError("no free username")


def make_teacher(user: Any) -> None:
    user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])


def class_of(context: LtiContext) -> Classroom | None:
    link = ClassLink.objects.filter(context=context).select_related("classroom").first()
    return link.classroom if link else None


def class_for_instructor(context: LtiContext, teacher: Any) -> Classroom:
    """The course's class, made for `teacher` at the first instructor launch."""
    found = class_of(context)
    if found is not None:
        return found
    base = (context.title or context.label or "LMS course")[:100]
    name, n = base, 1
    while Classroom.objects.filter(teacher=teacher, name=name).exists():
        n += 1
        name = f"{base} ({n})"
    with transaction.atomic():
        classroom = Classroom.objects.create(name=name, teacher=teacher)
        ClassLink.objects.create(context=context, classroom=classroom)
    return classroom


def enrol(classroom: Classroom, student: Any) -> bool:
    """Put a learner in the class (the class made the account: its teacher may reset it,
    as for a roster import). True if they were not in it."""
    if student.pk == classroom.teacher_id:
        return False
    _m, created = Membership.objects.get_or_create(
        classroom=classroom, student=student, defaults={"origin": Membership.Origin.ROSTER}
    )
    return created
