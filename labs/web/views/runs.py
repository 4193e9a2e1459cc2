"""A run's own pages: its permalink (polled while it works), exports, history, compare."""

from __future__ import annotations

import copy
import uuid
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from labs.catalogue.entries import LABS, get_lab
from labs.runs.dispatch import RunRefused, start_run
from labs.runs.models import Run
from labs.runs.predictions import record_shown
from labs.web import fragment_cache
from labs.web.compare import compare_runs
from labs.web.exports import csv_response, series_rows
from labs.web.forms import (
    CompareForm,
    RunFilterForm,
    RunLabelForm,
)
from labs.web.htmx import HtmxHttpRequest, SignedInRequest
from labs.web.keeping import keep_shown
from labs.web.presenters import (
    RunView,
    present_charts,
    present_panel,
    present_run,
    series_table,
)
from labs.web.responses import run_page

NO_LAB = gettext_lazy("This lab no longer exists, so the run cannot be repeated.")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def run_detail(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """A run's permalink. Polled by htmx while it runs; answers 286 once it is done.

    A poll only reads (the sweeper ends abandoned runs). A finished simulation's fragment
    never changes, so it is rendered once per language and kept in the shared cache
    (`labs.web.fragment_cache`); an experiment's carries its live queue panel and is
    rendered each time.
    """
    if request.htmx:
        try:
            run = visible_run(request, run_id)
        except Http404:
            return poll_of_a_run_gone()
    else:
        run = visible_run(request, run_id)
    lab = get_lab(run.lab)
    if not request.htmx:
        return run_page(request, run)
    if run.is_finished and lab is not None and lab.kind == "sim":
        html = finished_fragment(request, run, lab)
        return HttpResponse(html, status=HttpResponseStopPolling.status_code)
    context = {
        "run": run,
        "lab": lab,
        "view": present_run(run, lab),
        "panel": present_panel(run, lab, request.user),
    }
    response = render(request, "labs/run.html#run-body", context)
    record_shown(request.user, run)
    if run.is_finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


def poll_of_a_run_gone() -> HttpResponse:
    """A page's poll of a run it may not see: stop polling, change nothing, log nothing.

    A queued draft replaced by a newer value is deleted (`labs.runs.drafts`), and the page
    that posted it may still poll it once before its newer answer lands: a 404 there was a
    console error for a draft the student had already moved past. The answer is the same
    for a run that never existed or is another person's, so it says no more than a 404.
    """
    return HttpResponse(status=HttpResponseStopPolling.status_code, headers={"HX-Reswap": "none"})


def visible_run(request: HtmxHttpRequest, run_id) -> Run:
    """The run, if this user may see it; 404 otherwise. Cheap for what a poll needs.

    The result (tens to hundreds of KB of JSON) is loaded only when the fragment is
    rendered, not on every poll; and the owner, who does nearly all the polling, is
    checked on the row itself before the teacher's subqueries are built.
    """
    run = Run.objects.defer("own_result", "progress").filter(pk=run_id).first()
    if run is None or not request.user.is_authenticated:
        raise Http404(_("No such run, or it is not yours to see."))
    if run.owner_id != request.user.pk and not (
        Run.objects.visible_to(request.user).filter(pk=run_id).exists()
    ):
        raise Http404(_("No such run, or it is not yours to see."))
    return run


def finished_fragment(request: HtmxHttpRequest, run: Run, lab) -> str:
    """A finished simulation's run body, rendered once per language for every process.

    Shown to its owner, it is a result seen for these values (labs.runs.predictions).

    A draft's body is shown once (in the answer to its post, or to the one poll that finds
    it finished), so it is not kept by run: keeping it cost a draft a Redis read and three
    writes that nothing read back. Its charts are kept by result (another student's drag,
    or this one's, may come back to the same values), and so is the whole body of a draft
    answered at once (`shared_by_result`): a class dragging one slider makes such a draft
    at nearly every move, and each differs from its result's others only by its id and by
    how it stands against the challenges (filled in for each: whether this run was kept).
    """
    record_shown(request.user, run)

    language = get_language()
    draft_of = run.owner_id if run.draft else None  # a draft's pages are bounded

    def render_charts() -> str:
        figures, tables = present_charts(run.result or {}, lab)
        view = RunView(status=run.status, figures=figures, tables=tables)
        return render_to_string("labs/run.html#run-charts", {"view": view})

    def render(shown: Run = run, challenges_slot: str = "") -> str:
        view = present_run(shown, lab, charts=False)
        if shown.status == Run.Status.SUCCEEDED and shown.result:
            charts_html = fragment_cache.cached_html(
                fragment_cache.charts_key(shown, language), render_charts, draft_of=draft_of
            )
            view.charts_html = mark_safe(charts_html)  # noqa: S308 - our own template's output
        context = {
            "run": shown,
            "lab": lab,
            "view": view,
            "panel": None,
            "challenges_slot": mark_safe(challenges_slot),  # noqa: S308 - a comment of ours
        }
        return render_to_string("labs/run.html#run-body", context, request=request)

    if run.draft and shared_by_result(run):
        shared = fragment_cache.cached_html(
            fragment_cache.draft_body_key(run, language),
            lambda: render(stand_in(run), CHALLENGES_SLOT),
            draft_of=draft_of,
        )
        challenges = render_to_string("labs/run.html#run-challenges", {"run": run})
        return shared.replace(STAND_IN_ID, str(run.pk)).replace(CHALLENGES_SLOT, challenges)
    if run.draft:
        return render()
    return fragment_cache.cached_html(fragment_cache.key(run.pk, language), render)


# The id a shared draft body is rendered with, then replaced by each draft's own (a run's
# id is a random UUID: never this one), and where each draft's challenges go.
STAND_IN_ID = "00000000-0000-4000-8000-00000000d4af"
CHALLENGES_SLOT = "<!-- this draft against the challenges -->"


def shared_by_result(run: Run) -> bool:
    """Whether a draft's body is its result's other drafts' but for its id and challenges:
    it succeeded at once, answered from the store or with an identical run (the page then
    says so, and shows no time of its own), so the result key names all that it shows."""
    return (
        run.status == Run.Status.SUCCEEDED
        and bool(run.result_key)
        and run.same_as_id is not None
        and not run.duration
    )


def stand_in(run: Run) -> Run:
    """`run` under the stand-in id: what every draft of its result shows but its id."""
    shown = copy.copy(run)
    shown.id = uuid.UUID(STAND_IN_ID)
    return shown


@login_required
@require_GET
def run_numbers(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """The numbers behind a finished run's charts: fetched when the student opens them."""
    run = get_object_or_404(Run.objects.visible_to(request.user).defer("progress"), pk=run_id)
    table = (
        series_table(run.result, get_lab(run.lab))
        if run.status == Run.Status.SUCCEEDED and run.result
        else None
    )
    if table is None:
        raise Http404("This run has no time series.")
    if not request.htmx:
        return render(request, "labs/run_numbers.html", {"run": run, "table": table})
    return render(request, "labs/run.html#numbers", {"run": run, "table": table})


@login_required
@require_GET
def run_json(request: HtmxHttpRequest, run_id) -> JsonResponse:
    """The saved run as JSON: parameters, seed, status, timings and result. A download with
    a file name, as the CSV is (not a page of raw text in the tab)."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    keep_shown(run, request.user)  # a file that names the run: it stays
    response = JsonResponse(
        {
            "id": str(run.id),
            "lab": run.lab,
            "name": run.name,
            "note": run.note,
            "owner": run.owner.get_username(),
            "status": run.status,
            "params": run.params,
            "seed": run.seed,
            "created_at": run.created_at.isoformat(),
            "started_at": run.started_at.isoformat() if run.started_at else None,
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            "error": run.error,
            "same_as": bool(run.same_as_id),
            "result": run.result,
        },
        json_dumps_params={"indent": 1},
    )
    response["Content-Disposition"] = f'attachment; filename="{download_name(run)}.json"'
    return response


def download_name(run: Run) -> str:
    """The file name (without its extension) of a run's downloads: lab and short id."""
    return f"{run.lab}-{str(run.pk)[:8]}"


@login_required
@require_GET
@vary_on_headers("HX-Request")
def my_runs(request: SignedInRequest) -> HttpResponse:
    """A student's history: their own runs only, newest first, a page at a time, filtered
    by lab, by whether they named it and by whether it was handed in."""
    form = RunFilterForm(request.GET or None)
    # Drafts (runs started by moving a control) are not history: `labs.runs.drafts`.
    runs = Run.objects.filter(owner=request.user, draft=False).defer("own_result", "progress")
    status, number = 200, 1
    if form.is_bound and not form.is_valid():
        runs, status = runs.none(), 400
    elif form.is_bound:
        runs = filtered_runs(runs, form.cleaned_data)
        number = form.cleaned_data["page"] or 1
    page = Paginator(runs, RUNS_PER_PAGE).get_page(number)
    titles = {lab.slug: _(lab.title) for lab in LABS}
    rows = [(run, titles.get(run.lab, run.lab)) for run in page]
    query = request.GET.copy()
    query.pop("page", None)
    context = {"rows": rows, "form": form, "page": page, "query": query.urlencode()}
    template = "labs/runs.html#run-list" if request.htmx else "labs/runs.html"
    return render(request, template, context, status=status)


RUNS_PER_PAGE = 50


def filtered_runs(runs, wanted: dict):
    """`runs` narrowed by the history page's filters (each on an indexed column)."""
    if wanted.get("lab"):
        runs = runs.filter(lab=wanted["lab"])
    if wanted.get("named") == "yes":
        runs = runs.exclude(name="")
    elif wanted.get("named") == "no":
        runs = runs.filter(name="")
    handed_in = Run.objects.handed_in().filter(pk=OuterRef("pk"))
    if wanted.get("handed_in") == "yes":
        runs = runs.filter(Exists(handed_in))
    elif wanted.get("handed_in") == "no":
        runs = runs.filter(~Exists(handed_in))
    return runs


@login_required
@require_POST
@vary_on_headers("HX-Request")
def run_label(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Give a run a name and a note. Only its owner may; a teacher who can see it may not."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    if run.owner_id != request.user.pk:
        raise PermissionDenied(_("Only the person who made this run can name it."))
    if Run.objects.in_handed_in_pairs().filter(pk=run.pk).exists():
        return HttpResponse(
            _("This run is half of a handed-in before/after pair, so it can no longer change."),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    form = RunLabelForm(request.POST, instance=run)
    status = 200
    if form.is_valid():
        # Only these two columns: a worker may be saving the run's status and result in
        # this very moment, and a whole-row save would write back the ones read above.
        form.save(commit=False).save(update_fields=["name", "note"])
        # A named draft is one the student wants to find again. The body does not show
        # the name today; forget it anyway, so a template that starts to show it can
        # never serve the old one.
        if not keep_shown(run, request.user):
            fragment_cache.forget(run.pk)
        if not request.htmx:
            messages.success(request, _("Saved the run's name and note."))
            return redirect(run)
    else:
        status = 422
    if request.htmx:
        context = {"run": run, "label_form": form, "saved": status == 200}
        return render(request, "labs/run.html#run-label", context, status=status)
    return run_page(request, run, status=status, label_form=form)


@login_required
@require_GET
def run_csv(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """The run's time series as CSV, one row per step, columns as the lab saved them."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    if run.status != Run.Status.SUCCEEDED or not run.result:
        return HttpResponse(
            _("This run is %(status)s: only a finished, successful run has a time series.")
            % {"status": run.get_status_display()},
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    keep_shown(run, request.user)  # a file that names the run: it stays
    columns, rows = series_rows(run.result)
    return csv_response(f"{download_name(run)}.csv", columns, rows)


@login_required
@require_POST
def run_rerun(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Run the same lab again with this run's exact parameters and seed, then compare."""
    original = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(original.lab)
    if lab is None:
        return run_page(request, original, status=409, rerun_error=NO_LAB)
    try:
        again = start_run(request.user, lab, original.params, original.seed)
    except RunRefused as exc:
        return run_page(request, original, status=exc.status, rerun_error=exc.message)
    keep_shown(original, request.user)  # compared with its re-run: both stay
    query = urlencode([("run", original.pk), ("run", again.pk)])
    return redirect(f"{reverse('run-compare')}?{query}")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def run_compare(request: HtmxHttpRequest) -> HttpResponse:
    """Two runs of one lab: figures side by side, series overlaid. Polls until both finish."""
    form = CompareForm(request.user, request.GET)
    if form.has_error("run", "invalid_choice"):
        raise Http404(_("No such run, or it is not yours to see."))
    if not form.is_valid():
        return render(request, "labs/compare.html", {"form": form}, status=400)
    a, b = form.cleaned_data["run"]
    for run in (a, b):
        keep_shown(run, request.user)  # the comparison's link names both: they stay
    lab = get_lab(a.lab)
    comparison = compare_runs(a, b, lab)
    context = {"form": form, "lab": lab, "cmp": comparison}
    if not request.htmx:
        return render(request, "labs/compare.html", context)
    response = render(request, "labs/compare.html#comparison", context)
    if comparison.finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response
