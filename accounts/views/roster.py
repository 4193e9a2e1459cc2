"""A teacher's page for their students' accounts: roster import, slips, resets, sign-up."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.custody import (
    refusal_for,
    reset_password,
    reset_refusal,
    students_in_other_classes,
    teachers_among,
)
from accounts.roster import (
    RosterRaceError,
    RosterTextError,
    Slip,
    check_roster,
    import_roster,
    parse_roster,
)
from accounts.roster_form import RosterForm
from accounts.throttle import lift_pauses_of, paused_usernames
from teaching import approvals
from teaching.access import classroom_for, require_open, require_teacher_of
from teaching.models import Classroom, Membership
from teaching.people import in_natural_order


def _taught_class(request: HttpRequest, class_id: int, what: str) -> Classroom:
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, what)
    return classroom


def _accounts_page(request, classroom, *, form=None, problems=(), status=200) -> HttpResponse:
    memberships = in_natural_order(
        classroom.memberships.select_related("student", "student__profile"),
        user=lambda m: m.student,
    )
    ids = [m.student_id for m in memberships]
    others = students_in_other_classes(classroom.teacher, ids)
    teachers = teachers_among(ids)
    paused = paused_usernames([m.student.get_username() for m in memberships])
    for m in memberships:
        m.reset_refusal = reset_refusal(
            m, in_other_class=m.student_id in others, teaches=m.student_id in teachers
        )
        m.paused = m.student.get_username() in paused
    context = {
        "classroom": classroom,
        "form": form or RosterForm(),
        "problems": problems,
        "memberships": memberships,
        "any_paused": bool(paused),
        "signup_url": request.build_absolute_uri(reverse("signup")),
        "pending": classroom.pending.select_related("student").order_by("asked_at", "pk"),
    }
    return render(request, "accounts/class_accounts.html", context, status=status)


def _slips_page(request, classroom, slips: list[Slip]) -> HttpResponse:
    # Each slip reads in every language of the site, the page's own first: a new language
    # in settings.LANGUAGES is on the slips with no template edit.
    here = translation.get_language()
    others = [code for code, _name in settings.LANGUAGES if code != here]
    context = {
        "classroom": classroom,
        "slips": slips,
        "site": request.build_absolute_uri("/"),
        "other_languages": others,
    }
    return render(request, "accounts/slips.html", context)


@login_required
@require_GET
def class_accounts(request: HttpRequest, class_id: int) -> HttpResponse:
    classroom = _taught_class(request, class_id, "manage its students' accounts")
    return _accounts_page(request, classroom)


@login_required
@require_POST
@never_cache  # the answer holds passwords
def roster_import(request: HttpRequest, class_id: int) -> HttpResponse:
    classroom = _taught_class(request, class_id, "import a roster")
    require_open(classroom)  # an archived class takes no new students
    form = RosterForm(request.POST, request.FILES)
    if not form.is_valid():
        return _accounts_page(request, classroom, form=form, status=422)
    try:
        rows = parse_roster(form.roster_text())
    except RosterTextError as error:
        form.add_error(None, str(error))
        return _accounts_page(request, classroom, form=form, status=422)
    problems = check_roster(rows)
    if problems:
        return _accounts_page(request, classroom, form=form, problems=problems, status=422)
    try:
        slips = import_roster(classroom, rows)
    except RosterRaceError:
        form.add_error(
            None, _("A username was taken while importing. Nothing was made; try again.")
        )
        return _accounts_page(request, classroom, form=form, status=409)
    return _slips_page(request, classroom, slips)


@login_required
@require_POST
@never_cache
def password_reset(request: HttpRequest, class_id: int, student_id: int) -> HttpResponse:
    classroom = _taught_class(request, class_id, "reset a student's password")
    membership = get_object_or_404(
        Membership.objects.select_related("student"), classroom=classroom, student_id=student_id
    )
    refusal = refusal_for(classroom, membership)
    if refusal:
        raise PermissionDenied(refusal)
    student = membership.student
    password = reset_password(request, classroom, student)
    slip = Slip(student.get_full_name() or student.get_username(), student.get_username(), password)
    return _slips_page(request, classroom, [slip])


@login_required
@require_POST
def signup_toggle(request: HttpRequest, class_id: int) -> HttpResponse:
    classroom = _taught_class(request, class_id, "open or close sign-up")
    classroom.signup_open = request.POST.get("open") == "1"
    classroom.save(update_fields=["signup_open"])
    if classroom.signup_open:
        messages.success(request, _("Sign-up is open: the join code works again."))
    else:
        messages.success(request, _("Sign-up is closed: the join code no longer lets anyone in."))
    return redirect("class-accounts", classroom.pk)


@login_required
@require_POST
def lift_pauses(request: HttpRequest, class_id: int) -> HttpResponse:
    """One click lifts every failed-login pause on the class's students' usernames."""
    classroom = _taught_class(request, class_id, "lift login pauses")
    usernames = classroom.memberships.filter(
        student__is_staff=False, student__is_superuser=False
    ).values_list("student__username", flat=True)
    lifted = lift_pauses_of(list(usernames))
    messages.success(
        request,
        _("Login pauses lifted for %(n)d students: they can log in again now.") % {"n": lifted},
    )
    return redirect("class-accounts", classroom.pk)


@login_required
@require_POST
def approvals_toggle(request: HttpRequest, class_id: int) -> HttpResponse:
    """The class's "approve new sign-ups" switch (teaching.approvals)."""
    classroom = _taught_class(request, class_id, "turn approval of new sign-ups on or off")
    classroom.approve_signups = request.POST.get("approve") == "1"
    classroom.save(update_fields=["approve_signups"])
    if classroom.approve_signups:
        messages.success(
            request,
            _("New sign-ups now wait for you: approve or remove them on this page."),
        )
    else:
        messages.success(request, _("New sign-ups join the class at once again."))
    return redirect("class-accounts", classroom.pk)


@login_required
@require_POST
def decide_pending(request: HttpRequest, class_id: int) -> HttpResponse:
    """Approve or remove the ticked waiting sign-ups, all at once."""
    classroom = _taught_class(request, class_id, "approve or remove new sign-ups")
    action = request.POST.get("action")
    if action not in ("approve", "remove"):
        return HttpResponseBadRequest(_("Choose to approve or to remove the ticked sign-ups."))
    try:
        ids = [int(value) for value in request.POST.getlist("student")]
    except ValueError:
        return HttpResponseBadRequest(_("A ticked sign-up was not one of this class's."))
    if not ids:
        messages.error(request, _("Tick at least one sign-up first."))
        return redirect("class-accounts", classroom.pk)
    if action == "approve":
        require_open(classroom)  # an archived class takes no new students
        decided = approvals.approve(classroom, ids)
        messages.success(
            request, _("%(n)d sign-ups approved: they are in the class.") % {"n": decided.approved}
        )
    else:
        decided = approvals.remove(classroom, ids)
        messages.success(
            request,
            _("%(n)d sign-ups removed (%(d)d new accounts deleted).")
            % {"n": decided.refused + decided.deleted, "d": decided.deleted},
        )
    return redirect("class-accounts", classroom.pk)
