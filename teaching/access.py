"""Who may open what: a class's teacher, its students, and nobody else.

Someone outside a class gets 404, as if it did not exist; a student of the class who
asks for a teacher's page gets 403, since they know the class is there.
"""

from __future__ import annotations

from typing import Literal

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.roles import is_teacher
from teaching.models import Assignment, Classroom, Membership, Submission

Role = Literal["teacher", "student"]
NOT_FOUND = gettext_lazy("No such class, or you are not in it.")
ARCHIVED = gettext_lazy(
    "This class is archived: everything in it can be read, nothing changed. "
    "Its teacher can unarchive it."
)


def role_in(classroom: Classroom, user) -> Role | None:
    if classroom.teacher_id == user.pk:
        return "teacher"
    if Membership.objects.filter(classroom=classroom, student=user).exists():
        return "student"
    return None


def classroom_for(user, pk: int) -> tuple[Classroom, Role]:
    classroom = Classroom.objects.select_related("teacher").filter(pk=pk).first()
    role = role_in(classroom, user) if classroom else None
    if classroom is None or role is None:
        raise Http404(NOT_FOUND)
    return classroom, role


def assignment_for(user, pk: int) -> tuple[Assignment, Role]:
    assignment = (
        Assignment.objects.select_related("classroom", "classroom__teacher").filter(pk=pk).first()
    )
    role = role_in(assignment.classroom, user) if assignment else None
    if assignment is None or role is None:
        raise Http404(_("No such assignment, or it is not for a class of yours."))
    return assignment, role


def submission_for(user, pk: int) -> Submission:
    """A submission its student or the class's teacher may open."""
    submission = (
        Submission.objects.select_related(
            "assignment", "assignment__classroom", "student", "run", "before_run"
        )
        .filter(pk=pk)
        .first()
    )
    if submission is None or user.pk not in (
        submission.student_id,
        submission.assignment.classroom.teacher_id,
    ):
        raise Http404(_("No such submission, or it is not yours to see."))
    return submission


def require_open(classroom: Classroom) -> None:
    """Refuse any change to an archived class (403 with the reason), whoever asks."""
    if classroom.is_archived:
        raise PermissionDenied(ARCHIVED)


def require_teacher_of(role: Role, refusal: str) -> None:
    """`refusal` is the whole sentence shown, e.g. "Only the class's teacher can …"."""
    if role != "teacher":
        raise PermissionDenied(refusal)


def require_student(role: Role, refusal: str) -> None:
    if role != "student":
        raise PermissionDenied(refusal)


def require_teacher(user) -> None:
    if not is_teacher(user):
        raise PermissionDenied(_("Only teachers can create classes. Ask for a join code instead."))
