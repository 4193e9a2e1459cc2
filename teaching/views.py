"""Pages of classes and assignments. Each view: check access → validate → save → render.

Teachers see only their own classes; students see the classes they are in; anyone
else gets 404. Forms post to plain URLs and redirect, so everything works without
JavaScript; htmx requests get the page's fragment (`Vary: HX-Request`).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from labs.capstone.analysis import analysis_of
from labs.catalogue.entries import LABS, get_lab
from labs.catalogue.units import get_unit
from labs.roles import is_teacher
from labs.runs.models import Run
from labs.web import run_extras
from labs.web.forms import LabForm
from labs.web.htmx import HtmxHttpRequest, SignedInRequest
from labs.web.idempotency import idempotent
from labs.web.presenters import present_run
from labs.web.start import run_from_form
from teaching import criteria_words
from teaching.access import (
    assignment_for,
    classroom_for,
    require_open,
    require_student,
    require_teacher,
    require_teacher_of,
    submission_for,
)
from teaching.approvals import join_with_code, waiting_words
from teaching.criteria import evaluate
from teaching.evidence import evidence_for
from teaching.export import export_response
from teaching.forms import (
    AddStudentForm,
    AssignmentForm,
    ClassroomForm,
    ExtensionForm,
    JoinForm,
    RunsShownForm,
    SubmitForm,
)
from teaching.gradebook import cache as gradebook_cache
from teaching.gradebook.book import build_gradebook, standing_of, summary_of
from teaching.gradebook.hand_in import hand_in
from teaching.handin import (
    FeedbackForm,
    PairSubmitForm,
    default_pair,
    feedback_initial,
    pair_choices,
)
from teaching.join_link import join_url, qr_svg
from teaching.models import Assignment, Classroom, Extension, Invitation, Membership
from teaching.people import in_natural_order

LAB_GONE = gettext_lazy("The lab of this assignment no longer exists, so it cannot be run.")


# Classes ---------------------------------------------------------------------------


@login_required
@require_GET
def class_list(request: HtmxHttpRequest) -> HttpResponse:
    return _class_list_page(request)


@login_required
@require_POST
def class_new(request: SignedInRequest) -> HttpResponse:
    require_teacher(request.user)
    form = ClassroomForm(request.POST, teacher=request.user)
    if not form.is_valid():
        return _class_list_page(request, status=422, class_form=form)
    classroom = form.save(commit=False)
    classroom.teacher = request.user
    try:
        with transaction.atomic():
            classroom.save()
    except IntegrityError:
        # A double-click: the first press made the class between this one's check and save.
        twin = Classroom.objects.filter(teacher=request.user, name=classroom.name).first()
        if twin is None:
            raise
        return redirect(twin)
    messages.success(
        request,
        _("Class created. Students join with the code %(code)s.") % {"code": classroom.join_code},
    )
    return redirect(classroom)


@login_required
@require_POST
def class_join(request: SignedInRequest) -> HttpResponse:
    form = JoinForm(request.POST, student=request.user)
    if not form.is_valid():
        return _class_list_page(request, status=422, join_form=form)
    classroom = form.cleaned_data["code"]
    joined = join_with_code(classroom, request.user)
    if joined == "waiting":
        messages.info(request, waiting_words(classroom))
        return redirect("class-list")
    messages.success(
        request,
        (_("You joined %(class)s.") if joined == "joined" else _("You are already in %(class)s."))
        % {"class": classroom},
    )
    return redirect(classroom)


def _class_list_page(request, *, status=200, class_form=None, join_form=None) -> HttpResponse:
    user = request.user
    teaching = is_teacher(user)
    context = {
        "is_teacher": teaching,
        "taught": Classroom.objects.filter(teacher=user).annotate(
            n_students=Count("memberships", distinct=True),
            n_assignments=Count("assignments", distinct=True),
        ),
        "joined": Classroom.objects.filter(memberships__student=user)
        .select_related("teacher")
        .annotate(n_assignments=Count("assignments", distinct=True)),
        # Classes whose teacher has yet to approve this account (teaching.approvals): named,
        # never linked.
        "waiting": Classroom.objects.filter(pending__student=user).order_by("name"),
        "class_form": class_form or (ClassroomForm(teacher=user) if teaching else None),
        # The short join link (`teaching.join_link`) fills in the code.
        "join_form": join_form
        or JoinForm(student=user, initial={"code": request.GET.get("code", "")[:32]}),
    }
    return render(request, "teaching/classes.html", context, status=status)


@login_required
@require_GET
def class_detail(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    classroom, role = classroom_for(request.user, class_id)
    return _class_page(request, classroom, role)


def _class_page(
    request, classroom, role, *, status=200, add_form=None, section_errors=None
) -> HttpResponse:
    context: dict[str, Any] = {"classroom": classroom, "role": role}
    if role == "teacher":
        memberships = list(
            in_natural_order(
                classroom.memberships.select_related("student"), user=lambda m: m.student
            )
        )
        for m in memberships:  # a refused save shows what was typed, and why
            m.section_error = (section_errors or {}).get(m.student_id, "")
            m.section_shown = (
                request.POST.get(f"section-{m.student_id}", m.section)
                if section_errors
                else m.section
            )
        context["memberships"] = memberships
        context["assignments"] = classroom.assignments.annotate(n_submitted=Count("submissions"))
        context["add_form"] = add_form or AddStudentForm(classroom=classroom)
        context["invitations"] = classroom.invitations.select_related("student")
        link = join_url(request, classroom)
        context["join_link"] = link
        context["join_qr"] = qr_svg(
            link, _("QR code: the link to join %(class)s") % {"class": classroom}
        )
    else:
        book = build_gradebook(classroom, timezone.now(), students=[request.user])
        context["cells"] = book.rows[0].cells
    return render(request, "teaching/class.html", context, status=status)


@login_required
@require_POST
def student_add(request: SignedInRequest, class_id: int) -> HttpResponse:
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can add students."))
    require_open(classroom)
    form = AddStudentForm(request.POST, classroom=classroom)
    if not form.is_valid():
        return _class_page(request, classroom, role, status=422, add_form=form)
    student = form.cleaned_data["username"]
    # An existing account is the student's own: it joins only when they accept.
    Invitation.objects.get_or_create(  # get_or_create: a double click
        classroom=classroom, student=student, defaults={"invited_by": request.user}
    )
    messages.success(
        request,
        _(
            "Invited %(student)s to %(class)s. They join once they accept the invitation "
            "on their home page."
        )
        % {"student": student.get_username(), "class": classroom},
    )
    return redirect(classroom)


@login_required
@require_POST
def student_remove(request: HtmxHttpRequest, class_id: int, student_id: int) -> HttpResponse:
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can remove students."))
    require_open(classroom)
    membership = get_object_or_404(
        Membership.objects.select_related("student"), classroom=classroom, student_id=student_id
    )
    membership.delete()
    messages.success(
        request,
        _(
            "Removed %(student)s from %(class)s. "
            "Their submissions are kept, and come back if they rejoin."
        )
        % {"student": membership.student.get_username(), "class": classroom},
    )
    return redirect(classroom)


SECTION_MAX = 40  # Membership.section's length


@login_required
@require_POST
def sections_set(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    """Put students in sections (A, B, a lab group…): one field per student on the class's
    student list, saved together; an empty field takes the student out of any section.
    Only the students whose field was posted and changed are saved."""
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can set sections."))
    require_open(classroom)
    changed, errors = [], {}
    for membership in classroom.memberships.select_related("student"):
        posted = request.POST.get(f"section-{membership.student_id}")
        if posted is None:
            continue
        section = " ".join(posted.split())
        if len(section) > SECTION_MAX:
            errors[membership.student_id] = _("A section's name is at most %(n)s characters.") % {
                "n": SECTION_MAX
            }
        elif section != membership.section:
            membership.section = section
            changed.append(membership)
    if errors:
        return _class_page(request, classroom, role, status=422, section_errors=errors)
    with transaction.atomic():
        for membership in changed:
            membership.save(update_fields=["section"])
    messages.success(
        request,
        ngettext(
            "Saved the section of %(n)s student.", "Saved the sections of %(n)s students.",
            len(changed),
        ) % {"n": len(changed)},
    )  # fmt: skip
    return redirect(f"{classroom.get_absolute_url()}#students")


@login_required
@require_POST
def class_archive(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    """End of term: the class becomes read-only; `archived=0` opens it again."""
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can archive it."))
    archive = request.POST.get("archived", "1") != "0"
    classroom.archived_at = timezone.now() if archive else None
    classroom.save(update_fields=["archived_at"])
    if archive:
        note = _(
            "%(class)s is archived: it is read-only now (no runs, hand-ins or changes), "
            "and everything in it can still be read and downloaded."
        )
    else:
        note = _("%(class)s is open again: runs, hand-ins and changes are allowed.")
    messages.success(request, note % {"class": classroom})
    return redirect(classroom)


@login_required
@require_GET
def class_export(request: HtmxHttpRequest, class_id: int) -> FileResponse:
    """Download everything the class holds, as one zip (`teaching.export`)."""
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can download the class."))
    return export_response(request, classroom)


# Assignments -----------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def assignment_new(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    """Choose a lab (a plain link per lab), then set the assignment up for it."""
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can set assignments."))
    require_open(classroom)
    slug = request.GET.get("lab", "")
    if not slug:
        if request.method == "POST":
            return HttpResponse(_("Choose a lab first (?lab=…)."), status=400)
        labs = [(lab, get_unit(lab.unit)) for lab in LABS]
        return render(
            request, "teaching/assignment_form.html", {"classroom": classroom, "labs": labs}
        )
    lab = get_lab(slug)
    if lab is None:
        raise Http404(_("No lab called “%(slug)s”.") % {"slug": slug})
    form = AssignmentForm(_posted(request), classroom=classroom, lab=lab)
    if request.method == "POST" and form.is_valid():
        assignment = form.save()
        messages.success(
            request,
            _("Assignment “%(assignment)s” set for %(class)s.")
            % {"assignment": assignment, "class": classroom},
        )
        return redirect(assignment)
    status = 422 if form.is_bound else 200
    context = {"classroom": classroom, "lab": lab, "form": form}
    return render(request, "teaching/assignment_form.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def assignment_edit(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    assignment, role = assignment_for(request.user, assignment_id)
    require_teacher_of(role, _("Only the class's teacher can change assignments."))
    require_open(assignment.classroom)
    lab = assignment.get_lab()
    if lab is None:
        return HttpResponse(LAB_GONE, status=409)
    form = AssignmentForm(
        _posted(request), instance=assignment, classroom=assignment.classroom, lab=lab
    )
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(
            request, _("Assignment saved; submissions are graded on the new criteria.")
        )
        return redirect(assignment)
    context = {
        "classroom": assignment.classroom,
        "lab": lab,
        "form": form,
        "assignment": assignment,
    }
    return render(
        request, "teaching/assignment_form.html", context, status=422 if form.is_bound else 200
    )


@login_required
@require_GET
def assignment_detail(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    assignment, role = assignment_for(request.user, assignment_id)
    return _assignment_page(request, assignment, role)


@login_required
@require_POST
@vary_on_headers("HX-Request")
@idempotent
def assignment_run(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """Run the assignment's lab with its presets; locked ones are never read from the POST."""
    assignment, role = assignment_for(request.user, assignment_id)
    require_open(assignment.classroom)
    lab = assignment.get_lab()
    if lab is None:
        return HttpResponse(LAB_GONE, status=409)
    form = _lab_form(assignment, lab, request.POST)
    run, status = run_from_form(
        request.user, form, request.POST, assignment.require_prediction and role == "student"
    )
    if run is not None and not request.htmx:
        if role == "teacher":
            return redirect(run)
        messages.success(request, _("Run started: it appears under Your runs below."))
        return redirect(f"{assignment.get_absolute_url()}#your-runs")
    if not request.htmx:
        return _assignment_page(request, assignment, role, status=status, form=form)
    context: dict[str, Any] = {
        "lab": lab,
        "form": form,
        "run": run,
        "view": present_run(run, lab) if run else None,
        "require_prediction": assignment.require_prediction,
        **_panel_urls(assignment, role),
    }
    if run is not None:
        context["controls"] = run_extras.panel_for(run, request.user)
    return render(request, "labs/lab.html#lab-panel", context, status=status)


@login_required
@require_POST
@idempotent
def assignment_submit(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """Hand in one of my runs; resubmitting replaces the last one until the due date."""
    assignment, role = assignment_for(request.user, assignment_id)
    require_student(role, _("Only students of the class can submit runs."))
    require_open(assignment.classroom)
    now = timezone.now()
    standing = standing_of(assignment, request.user, now)
    form_class = PairSubmitForm if assignment.is_pair else SubmitForm
    form = form_class(
        request.POST, assignment=assignment, student=request.user, due_at=standing.due_at, now=now
    )
    if not form.is_valid():
        return _assignment_page(request, assignment, role, status=422, submit_form=form)
    created = hand_in(
        assignment, request.user, form.cleaned_data["run"], form.cleaned_data.get("before"), now
    )
    messages.success(
        request,
        _("Submitted.") if created else _("Resubmitted: a new version replaces the last."),
    )
    return redirect(f"{assignment.get_absolute_url()}#submission")


@login_required
@require_POST
def extension_set(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """Give one student a later due date, or take it back (empty date)."""
    assignment, role = assignment_for(request.user, assignment_id)
    require_teacher_of(role, _("Only the class's teacher can give extensions."))
    require_open(assignment.classroom)
    form = ExtensionForm(request.POST, assignment=assignment)
    if not form.is_valid():
        return _assignment_page(request, assignment, role, status=422, extension_form=form)
    student, due = form.cleaned_data["student"], form.cleaned_data["due_at"]
    if due is None:
        Extension.objects.filter(assignment=assignment, student=student).delete()
        messages.success(
            request,
            _("%(student)s is back on the class's due date.") % {"student": student.get_username()},
        )
    else:
        Extension.objects.update_or_create(
            assignment=assignment, student=student, defaults={"due_at": due}
        )
        messages.success(
            request, _("Extended %(student)s's due date.") % {"student": student.get_username()}
        )
    return redirect(f"{assignment.get_absolute_url()}#extensions")


def _posted(request: HtmxHttpRequest):
    return request.POST if request.method == "POST" else None


def _lab_form(assignment: Assignment, lab, data=None) -> LabForm:
    return LabForm(lab, data, initial=assignment.open_presets(), locked=assignment.locked_presets())


def _panel_urls(assignment: Assignment, role: str) -> dict[str, str]:
    """Where the lab panel's buttons post on this assignment's page: its own views, which
    take the locked presets from the assignment, so the panel stays the assignment's."""
    urls = {
        "action": reverse("assignment-run", args=[assignment.pk]),
        "pair_url": reverse("assignment-pair", args=[assignment.pk]),
    }
    if role == "student":
        urls["submit_url"] = reverse("assignment-submit", args=[assignment.pk])
    return urls


def _pair_pickers(assignment: Assignment, runs: list[Run]) -> dict:
    """The hand-in's Before and After pickers, each starting on its half of the newest pair,
    and the address of that pair's report (where the analysis is written)."""
    before, after = default_pair(runs)
    context: dict = {"pair_choices": pair_choices(runs), "pair_before": before, "pair_after": after}
    if before is not None and after is not None:
        back = urlencode({"back": assignment.get_absolute_url()})
        context["pair_report_url"] = f"{reverse('report', args=[before.id, after.id])}?{back}"
    return context


RUNS_SHOWN = 20  # a student's runs listed at once on an assignment's page


def _runs_shown(request, assignment: Assignment, context: dict) -> list[Run]:
    """One page of the student's runs of the lab (newest first, or one seed's), with the
    links to the pages either side and the form that picks them; a filter that does not
    parse is said on the form and the newest page is shown."""
    form = RunsShownForm(request.GET if "seed" in request.GET or "page" in request.GET else None,
                         auto_id="runs_%s")  # fmt: skip
    seed, page = None, 1
    if form.is_bound and form.is_valid():
        seed, page = form.cleaned_data["seed"], form.cleaned_data["page"] or 1
    runs = (
        Run.objects.filter(owner=request.user, lab=assignment.lab, draft=False)
        .defer("own_result", "progress")
        .prefetch_related("predictions")
    )
    if seed is not None:
        runs = runs.filter(seed=seed)
    start = (page - 1) * RUNS_SHOWN
    found = list(runs[start : start + RUNS_SHOWN + 1])  # one more says whether older exist

    def link(to: int) -> str:
        query = {"seed": seed, "page": to if to > 1 else None}
        return "?" + urlencode({k: v for k, v in query.items() if v is not None}) + "#your-runs"

    context.update(
        runs_form=form,
        runs_seed=seed,
        runs_newer=link(page - 1) if page > 1 else "",
        runs_older=link(page + 1) if len(found) > RUNS_SHOWN else "",
    )
    return found[:RUNS_SHOWN]


def _assignment_page(request, assignment, role, *, status=200, **extra) -> HttpResponse:
    lab = assignment.get_lab()
    context = {
        "assignment": assignment,
        "classroom": assignment.classroom,
        "role": role,
        "lab": lab,
        "criteria": assignment.checks(),
        "locked": assignment.locked_presets(),
        "open": assignment.open_presets(),
        "locked_words": criteria_words.preset_words(lab, assignment.locked_presets()),
        "open_words": criteria_words.preset_words(lab, assignment.open_presets()),
        **_panel_urls(assignment, role),
        "require_prediction": assignment.require_prediction,
    }
    if lab is not None:
        context["form"] = _lab_form(assignment, lab)
    if role == "student":
        now = timezone.now()
        standing = standing_of(assignment, request.user, now)
        runs = _runs_shown(request, assignment, context)
        context["standing"] = standing
        context["my_runs"] = [(run, assignment.mismatch(run)) for run in runs]
        if assignment.is_pair:
            context.update(_pair_pickers(assignment, [r for r, p in context["my_runs"] if not p]))
    else:
        context["extensions"] = assignment.extensions.select_related("student")
        context["extension_form"] = ExtensionForm(assignment=assignment)
        handed_in = in_natural_order(
            assignment.submissions.select_related("student").only(
                "run_id", "student__username", "student__first_name", "student__last_name"
            ),
            user=lambda sub: sub.student,
        )
        context["n_submitted"] = len(handed_in)
        # Two students' runs side by side, picked from the hand-ins (not typed into a URL).
        context["compare_choices"] = handed_in
    context.update(extra)
    return render(request, "teaching/assignment.html", context, status=status)


# Gradebook and submissions -----------------------------------------------------------


@login_required
@require_GET
def gradebook(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can open the gradebook."))
    context = {"classroom": classroom, "book_table": gradebook_cache.table(request, classroom)}
    return render(request, "teaching/gradebook.html", context)


@login_required
@require_GET
def gradebook_csv(request: HtmxHttpRequest, class_id: int) -> HttpResponse:
    """The gradebook as CSV: one row per student, eleven columns per assignment."""
    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can export the gradebook."))
    filename = f"gradebook-{slugify(classroom.name) or classroom.pk}.csv"
    response = HttpResponse(
        gradebook_cache.csv_bytes(request, classroom), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_GET
def submission_detail(request: HtmxHttpRequest, submission_id: int) -> HttpResponse:
    """A submission with every criterion, the figure behind it, and a way to re-run it."""
    return submission_page(request, submission_for(request.user, submission_id))


def submission_page(request, submission, *, status=200, feedback_form=None) -> HttpResponse:
    assignment = submission.assignment
    extension = (
        Extension.objects.filter(assignment=assignment, student=submission.student)
        .values_list("due_at", flat=True)
        .first()
    )
    due = assignment.due_for(extension)
    is_teacher = request.user.pk == assignment.classroom.teacher_id
    pair = submission.before_run
    lab = get_lab(submission.run.lab)
    context = {
        "submission": submission,
        # A lab with no random draws ignores its seed: showing it would suggest it matters.
        "shows_seed": lab is None or lab.uses_seed,
        "assignment": assignment,
        "classroom": assignment.classroom,
        "due_at": due,
        "late": submission.submitted_at > due,
        "checks": evaluate(assignment.checks(), summary_of(submission)),
        "lab": lab,
        "is_teacher": is_teacher,
        "analysis": analysis_of(pair, submission.run) if pair else None,
        "versions": submission.versions.select_related("run", "before_run") if is_teacher else [],
        "evidence": evidence_for(submission),
    }
    if is_teacher:
        context["feedback_form"] = feedback_form or FeedbackForm(
            initial=feedback_initial(submission), assignment=assignment
        )
    return render(request, "teaching/submission.html", context, status=status)


@login_required
@require_POST
def submission_feedback(request: HtmxHttpRequest, submission_id: int) -> HttpResponse:
    """The teacher's written feedback and rubric scores; the student reads them."""
    submission = submission_for(request.user, submission_id)
    if request.user.pk != submission.assignment.classroom.teacher_id:
        raise PermissionDenied(_("Only the class's teacher can give feedback."))
    require_open(submission.assignment.classroom)
    form = FeedbackForm(request.POST, assignment=submission.assignment)
    if not form.is_valid():
        return submission_page(request, submission, status=422, feedback_form=form)
    submission.feedback = form.cleaned_data["feedback"].strip()
    submission.scores = form.scores()
    submission.feedback_at = timezone.now()
    submission.save(update_fields=["feedback", "scores", "feedback_at"])
    messages.success(request, _("Feedback saved: the student can read it now."))
    return redirect(submission)
