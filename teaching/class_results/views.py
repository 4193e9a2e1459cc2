"""The class results page of an assignment, its projector view and its exports.

Only the class's teacher and the site's admins see it; a student of the class gets 403
(they know the assignment is there), anyone else 404. Each view: check access → read the
filters → the page's signature → its body from the shared cache, or built (`ClassResults`,
a fixed number of queries) and rendered once for everyone who asks the same → the page.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from labs.runs.dispatch import RunRefused, start_run
from labs.runs.waiting import waiting_count
from labs.web.htmx import HtmxHttpRequest
from teaching.access import role_in
from teaching.class_results import charts as class_charts
from teaching.class_results.export import class_evidence, export_columns, export_rows
from teaching.class_results.figures import ClassResults, class_results
from teaching.class_results.predictions import predictions_panel, predictions_signature
from teaching.evidence import evidence_cells
from teaching.evidence import headings as evidence_headings
from teaching.gradebook import cache as gradebook_cache
from teaching.models import Assignment

# A projector's page changes no faster than a room reads it.
PROJECTOR_POLL_MIN_MS = 3000
STATUS_WORDS = {
    "all": gettext_lazy("everyone"),
    "submitted": gettext_lazy("handed in"),
    "late": gettext_lazy("handed in late"),
    "missing": gettext_lazy("not handed in yet"),
}
TABS = ("lines", "small")
RENDERING = 3  # bump when the body's template or context change shape: old copies are ignored
MAX_AGE_S = 3600  # a copy outlives no change the signature misses by more than an hour


def results_assignment(user, pk: int) -> Assignment:
    """The assignment, if `user` teaches its class or is an admin; 403 for its students."""
    assignment = (
        Assignment.objects.select_related("classroom", "classroom__teacher").filter(pk=pk).first()
    )
    if assignment is None:
        raise Http404(_("No such assignment, or it is not for a class of yours."))
    if user.is_superuser:
        return assignment
    role = role_in(assignment.classroom, user)
    if role is None:
        raise Http404(_("No such assignment, or it is not for a class of yours."))
    if role != "teacher":
        raise PermissionDenied(_("Only the class's teacher can see the class's results."))
    return assignment


class ResultsFilter(forms.Form):
    """What the page shows: whose hand-ins, which section, names or not, which tab."""

    status = forms.ChoiceField(
        label=gettext_lazy("Which students"),
        choices=list(STATUS_WORDS.items()),
        required=False,
    )
    section = forms.ChoiceField(label=gettext_lazy("Section"), required=False)
    names = forms.ChoiceField(choices=[("on", "on"), ("off", "off")], required=False)
    tab = forms.ChoiceField(choices=[(t, t) for t in TABS], required=False)

    def __init__(self, *args: Any, sections: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        section = self.fields["section"]
        assert isinstance(section, forms.ChoiceField)
        section.choices = [("", _("all sections"))] + [(s, s) for s in sections]

    def value(self, name: str, default: str) -> str:
        if not self.is_valid():
            return default
        return self.cleaned_data.get(name) or default


def sections_of(assignment: Assignment) -> list[str]:
    return sorted(
        set(assignment.classroom.memberships.exclude(section="").values_list("section", flat=True))
    )


def read_filters(request: HttpRequest, assignment: Assignment, *, projector: bool):
    form = ResultsFilter(request.GET, sections=sections_of(assignment))
    if request.GET and not form.is_valid():
        return form, None
    chosen = {
        "status": form.value("status", "all"),
        "section": form.value("section", ""),
        "names": form.value("names", "off" if projector else "on"),
        "tab": form.value("tab", "lines"),
    }
    return form, chosen


def build(assignment: Assignment, chosen: dict[str, str]) -> ClassResults:
    lab = assignment.get_lab()
    if lab is None:
        raise Http404(_("The lab of this assignment no longer exists."))
    return class_results(
        assignment,
        lab,
        timezone.now(),
        status=chosen["status"],
        section=chosen["section"],
        names=chosen["names"] == "on",
    )


def query(chosen: dict[str, str], **change: str) -> str:
    """The page's query string with `change` applied (the filters' links keep the rest)."""
    from urllib.parse import urlencode

    values = {**chosen, **change}
    return "?" + urlencode({k: v for k, v in values.items() if v})


def page_context(request, assignment, results: ClassResults, chosen, *, projector: bool):
    """What the body's template reads. Only the tab shown is drawn: the small multiples'
    SVG or the overlay and its table, never both."""
    lines = chosen["tab"] == "lines"
    smalls: list[class_charts.Small] = []
    small_w, small_h = class_charts.SMALL_W, class_charts.SMALL_H
    if not lines:
        smalls, small_w, small_h = class_charts.small_multiples(results)
    overlay = class_charts.overlay_chart(results) if lines else None
    spreads = [(s, class_charts.spread_chart(s, results)) for s in results.spreads]
    table_rows = [
        (entry, [entry.figures.get(s.figure.name) for s in results.spreads])
        for entry in results.entries
    ]
    # Panels after the criteria, each a dict naming the "template" to include.
    panels = [panel for panel in (predictions_panel(results),) if panel is not None]
    pass_chart = class_charts.pass_rate_chart(results)
    changes_chart = class_charts.changes_chart(results)
    charts = [
        chart
        for chart in (overlay, pass_chart, changes_chart, *(chart for _s, chart in spreads))
        if chart is not None
    ]
    if projector:
        for chart in charts:
            for_projector(chart)
    evidence_headings, evidence_rows = evidence_table(assignment, results, projector=projector)
    return {
        "evidence_headings": evidence_headings,
        "evidence_rows": evidence_rows,
        "assignment": assignment,
        "classroom": assignment.classroom,
        "results": results,
        "lab": results.lab,
        "chosen": chosen,
        "projector": projector,
        "overlay": overlay,
        "smalls": smalls,
        "small_w": small_w,
        "small_h": small_h,
        "spreads": spreads,
        "table_rows": table_rows,
        "line_rows": class_charts.line_rows(results) if lines else [],
        "extra_panels": panels,
        "pass_chart": pass_chart,
        "changes_chart": changes_chart,
        "status_words": STATUS_WORDS,
        "names_on": chosen["names"] == "on",
        "q": query(chosen),
        "q_lines": query(chosen, tab="lines"),
        "q_small": query(chosen, tab="small"),
        "q_names": query(chosen, names="off" if chosen["names"] == "on" else "on"),
    }


def evidence_table(assignment: Assignment, results: ClassResults, *, projector: bool):
    """The page's table of what the assignment asked (`teaching.evidence`): the CSV's own
    cells, with links relative (the cached page is the same for every host name)."""
    if projector:
        return [], []
    found = class_evidence(results)
    shown = evidence_headings(assignment)

    def link(run_id):
        return reverse("run-detail", args=[run_id])

    rows = []
    for entry in results.entries:
        cells = evidence_cells(assignment, found[entry.student.pk], link)
        rows.append((entry, [(column, cells.get(column)) for column, _h in shown]))
    return shown, rows


def for_projector(chart: dict[str, Any]) -> None:
    """Type a room can read from the back: a third larger, and the chart taller with it."""
    layout = chart["layout"]
    layout["font"] = {**layout.get("font", {}), "size": 17}
    layout["title"]["font"] = {"size": 22}
    layout["height"] = int(layout["height"] * 1.3)


def projector_poll_ms() -> int:
    """How long the projector waits between looks: at least 3 s, and no more often than
    one page's share of the site's poll budget (`LAB_POLLS_PER_S`) while runs are waiting,
    the projector counted as one more page polling."""
    share_ms = int(1000 * (waiting_count() + 1) / settings.LAB_POLLS_PER_S)
    return max(PROJECTOR_POLL_MIN_MS, share_ms)


def signature(assignment: Assignment) -> str:
    """Changes when anything the page shows can change, from a few small queries rather
    than the whole page's work: who is in the class and in which section, their due
    dates and whether each has passed, every hand-in and its version, the class's runs,
    the assignment's own settings, whether the lesson's case has been run, and the
    predictions panel's data (`predictions_signature`). A projector whose page matches is
    answered with its poller alone; the rendered page is kept under it."""
    return _look(assignment)[0]


def _look(assignment: Assignment) -> tuple[str, bool]:
    """(the signature, whether the lesson's case has been run)."""
    from django.db.models import Count, Max, Sum

    from labs.runs.models import Run, StoredResult
    from labs.runs.result_store import result_key
    from teaching.class_results.figures import lesson_case

    now = timezone.now()
    members = list(
        assignment.classroom.memberships.order_by("student_id").values_list("student_id", "section")
    )
    extensions = [
        (student, due <= now)
        for student, due in assignment.extensions.order_by("student_id").values_list(
            "student_id", "due_at"
        )
    ]
    handed_in = assignment.submissions.aggregate(
        n=Count("pk"),
        versions=Sum("version"),
        last=Max("digest__made_at"),
        feedback=Max("feedback_at"),  # the rubric's scores are saved with it
    )
    runs = Run.objects.filter(
        owner_id__in=[m[0] for m in members],
        lab=assignment.lab,
        created_at__gte=assignment.created_at,
    ).count()
    lab = assignment.get_lab()
    reference = False
    if lab is not None:
        params, seed = lesson_case(assignment, lab)
        reference = StoredResult.objects.filter(key=result_key(lab, params, seed)).exists()
    parts = [
        members,
        extensions,
        handed_in,
        runs,
        reference,
        assignment.due_at <= now,
        assignment.criteria,
        assignment.presets,
        assignment.locked,
        assignment.title,
        [predictions_signature(assignment)],
        _evidence_signature(assignment, [m[0] for m in members]),
    ]
    digest = hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]
    return digest, reference


def _evidence_signature(assignment: Assignment, members: list[Any]) -> list[Any]:
    """What the evidence table can change by besides the hand-ins: the assignment's asks,
    the latest self-check of a member, the members' finished runs of the challenges' labs
    (a query each, only when the assignment asks for them)."""
    from django.db.models import Count, Max

    from labs.runs.models import Run
    from lessons.models import Attempt
    from teaching.unit_challenges import get_challenge

    parts: list[Any] = [assignment.selfcheck, assignment.challenges, assignment.rubric]
    if assignment.selfcheck:
        parts.append(
            Attempt.objects.filter(student_id__in=members, unit=assignment.selfcheck).aggregate(
                n=Count("pk"), last=Max("pk")
            )
        )
    labs = sorted({c.lab for c in map(get_challenge, assignment.challenges or []) if c})
    if labs:
        parts.append(
            Run.objects.filter(
                owner_id__in=members, lab__in=labs, status=Run.Status.SUCCEEDED, draft=False
            ).aggregate(n=Count("pk"), last=Max("created_at"))
        )
    return parts


def body_html(
    request: HttpRequest,
    assignment: Assignment,
    chosen: dict[str, str],
    *,
    projector: bool,
    sig: str,
) -> SafeString:
    """The page's body (everything the projector refreshes), from the shared cache when a
    copy for this signature, language, filters and view is there; else built and kept.

    Every web process reads the same copy (Redis), so a class of 100 is built once per
    change rather than once per view; a new hand-in, run, member or setting moves the
    signature and the next view builds afresh. The class's version (bumped by every save
    that changes the class, a student's name included) is in the key too."""
    from django.core.cache import cache

    asked = json.dumps([get_language(), projector, chosen], sort_keys=True)
    key = ":".join(
        [
            "class-results",
            str(RENDERING),
            gradebook_cache.site(),
            str(assignment.pk),
            str(gradebook_cache.version(assignment.classroom_id)),
            sig,
            hashlib.sha1(asked.encode()).hexdigest()[:16],
        ]
    )
    html = cache.get(key)
    if html is None:
        results = build(assignment, chosen)
        context = page_context(request, assignment, results, chosen, projector=projector)
        html = render_to_string(
            "teaching/class_results.html#results-inner", context, request=request
        )
        cache.set(key, html, timeout=MAX_AGE_S)
    return mark_safe(html)  # noqa: S308 - our own template's output


@login_required
@require_GET
@vary_on_headers("HX-Request")
def results_page(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    return _page(request, assignment_id, projector=False)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def results_projector(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """The same page in large type for a projector, names hidden unless shown, updating
    as hand-ins arrive: the poll answers with only itself when nothing changed."""
    return _page(request, assignment_id, projector=True)


def _page(request: HtmxHttpRequest, assignment_id: int, *, projector: bool) -> HttpResponse:
    assignment = results_assignment(request.user, assignment_id)
    form, chosen = read_filters(request, assignment, projector=projector)
    if chosen is None:
        refused = {"assignment": assignment, "classroom": assignment.classroom, "form": form}
        return render(request, "teaching/class_results.html", refused, status=400)
    sig, has_reference = _look(assignment)
    context: dict[str, Any] = {
        "assignment": assignment,
        "classroom": assignment.classroom,
        "projector": projector,
        "chosen": chosen,
        "q": query(chosen),
        "poll_ms": projector_poll_ms() if projector else None,
        "signature": sig,
    }
    if request.htmx and projector and request.GET.get("since") == sig:
        return render(request, "teaching/class_results.html#poll", context | {"changed": False})
    context["body"] = body_html(request, assignment, chosen, projector=projector, sig=sig)
    if request.htmx and projector:
        return render(request, "teaching/class_results.html#poll", context | {"changed": True})
    context.update(
        form=form,
        sections=sections_of(assignment),
        has_reference=has_reference,
        names_on=chosen["names"] == "on",
        q_names=query(chosen, names="off" if chosen["names"] == "on" else "on"),
    )
    return render(request, "teaching/class_results.html", context)


@login_required
@require_GET
def results_csv(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """The class's figures for a spreadsheet: a row per student, a column per figure and
    criterion; text that a spreadsheet would run as a formula is quoted (the gradebook's
    guard)."""
    from labs.web.exports import csv_response

    assignment, results = _export(request, assignment_id)
    columns = export_columns(results)
    rows = [[row[c] for c in columns] for row in export_rows(results, request)]
    return csv_response(_filename(assignment, "csv"), columns, rows)


@login_required
@require_GET
def results_json(request: HttpRequest, assignment_id: int) -> JsonResponse:
    """The same rows as the CSV, as JSON objects (values as typed, for a program)."""
    assignment, results = _export(request, assignment_id)
    response = JsonResponse(
        {
            "assignment": assignment.title,
            "lab": assignment.lab,
            "columns": export_columns(results),
            "rows": export_rows(results, request),
        },
        json_dumps_params={"ensure_ascii": False, "indent": 1},
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename(assignment, "json")}"'
    return response


def _export(request: HttpRequest, assignment_id: int) -> tuple[Assignment, ClassResults]:
    assignment = results_assignment(request.user, assignment_id)
    form, chosen = read_filters(request, assignment, projector=False)
    if chosen is None:
        raise Http404(_("No such filter."))
    return assignment, build(assignment, chosen)


def _filename(assignment: Assignment, ext: str) -> str:
    return f"results-{slugify(assignment.title) or assignment.pk}.{ext}"


@login_required
@require_POST
def results_reference(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """Run the lesson's case (the lab's defaults under the assignment's presets) through
    the workers like any run, so the page can mark its figures."""
    from teaching.class_results.figures import lesson_case

    assignment = results_assignment(request.user, assignment_id)
    lab = assignment.get_lab()
    if lab is None:
        raise Http404(_("The lab of this assignment no longer exists."))
    params, seed = lesson_case(assignment, lab)
    try:
        run = start_run(request.user, lab, params, seed)
    except RunRefused as exc:
        return HttpResponse(exc.message, status=exc.status)
    run.name = _("The lesson's case")[:80]
    run.save(update_fields=["name"])
    return redirect(reverse("assignment-results", args=[assignment.pk]))
