"""The self-check on a unit page: mark the answers, keep a signed-in student's score."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from labs.catalogue.units import get_unit
from lessons.forms import SelfCheckForm
from lessons.marking import mark_all
from lessons.models import Attempt, keep_recent
from lessons.panel import render_panel
from lessons.questions import questions_for


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def selfcheck(request: HttpRequest, unit_slug: str) -> HttpResponse:
    """Anyone may answer (lessons are open); only a signed-in student's score is kept."""
    unit = get_unit(unit_slug)
    questions = questions_for(unit_slug)
    if unit is None or not questions:
        raise Http404("This unit has no self-check.")
    if request.method == "GET":
        return redirect(reverse("unit-detail", args=[unit_slug]) + "#self-check")
    form = SelfCheckForm(request.POST, questions=questions)
    if not form.is_valid():
        return render_panel(request, unit, form, marks=None, status=422)
    marks = mark_all(questions, form.answers())
    if request.user.is_authenticated:
        with transaction.atomic():
            Attempt.objects.create(
                student=request.user,
                unit=unit_slug,
                answers=form.answers(),
                right=sum(m.right for m in marks),
                total=len(marks),
            )
            keep_recent(request.user, unit_slug)
    return render_panel(request, unit, form, marks=marks)
