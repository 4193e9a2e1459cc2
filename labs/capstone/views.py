"""The capstone's before/after report and its operator view of the payments."""

from __future__ import annotations

from typing import Any

import redis
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, HttpResponseStopPolling

from labs.capstone import control_panel
from labs.capstone import report as reports
from labs.capstone.analysis import Analysis, analysis_of, pair_is_handed_in
from labs.capstone.analysis_form import AnalysisForm
from labs.capstone.forms import PICK_LIMIT, ReportPickForm
from labs.capstone.markdown import analysis_markdown
from labs.capstone.markdown import render as render_markdown
from labs.capstone.operator import obligations_view
from labs.capstone.pair_run import start_pair
from labs.capstone.presenters import present_report
from labs.catalogue.entries import get_lab
from labs.catalogue.units import get_unit
from labs.runs.dispatch import RunRefused
from labs.runs.models import Run
from labs.web.forms import LabForm
from labs.web.htmx import HtmxHttpRequest
from labs.web.idempotency import idempotent
from labs.web.keeping import keep_shown
from labs.web.predict import early_said, skip_said, take_guesses
from labs.web.responses import login_needed, run_page


@login_required
@require_GET
def run_obligations(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """The operator view of a trapped-service run: its payments by state, and who owns them."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id, lab__in=reports.LABS)
    view = None
    if run.status == Run.Status.SUCCEEDED:
        view = obligations_view(run.result)
    return render(request, "labs/obligations.html", {"run": run, "view": view})


@login_required
@require_POST
@vary_on_headers("HX-Request")
def run_control(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Switch one control of the owner's live trapped-service run, on its own Redis channel."""
    run = (
        Run.objects.visible_to(request.user)
        .filter(pk=run_id, owner=request.user, lab=control_panel.LAB)
        .first()
    )
    if run is None:
        raise Http404(_("No live run of yours here."))
    form = control_panel.ControlForm(request.POST)
    if not form.is_valid():
        errors = " ".join(str(e) for field in form.errors.values() for e in field)
        return _control_response(request, run, errors, 400)
    command = form.cleaned_data["command"]
    if run.is_finished:
        return _control_response(
            request, run, gettext("The run has finished: controls act only while it runs."), 409
        )
    try:
        sent = control_panel.send(run, command)
    except redis.RedisError:
        return _control_response(
            request, run, gettext("The panel cannot reach Redis just now. Try again."), 503
        )
    if not sent:
        return _control_response(
            request, run, gettext("The experiment has not started yet: try again in a moment."), 409
        )
    done = gettext("Sent: %(command)s. The live chart marks when it acted.") % {
        "command": control_panel.command_words(command)
    }
    return _control_response(request, run, done, 200)


def _control_response(
    request: HtmxHttpRequest, run: Run, message: str, status: int
) -> HttpResponse:
    failed = status >= 400
    if request.htmx:
        return render(
            request,
            "labs/control_panel.html#control-message",
            {"control_message": message, "control_failed": failed},
            status=status,
        )
    return run_page(request, run, status=status, control_message=message, control_failed=failed)


@require_POST
@vary_on_headers("HX-Request")
@idempotent
def report_pair(request: HtmxHttpRequest) -> HttpResponse:
    """Run the lab's form twice with one seed, controls off then on, and open their report."""
    slug = request.POST.get("lab", reports.LAB)
    lab = get_lab(slug if slug in reports.LABS else reports.LAB)
    if lab is None:
        raise Http404(_("No such lab."))
    if not request.user.is_authenticated:
        return login_needed(request)
    form = LabForm(lab, request.POST)
    status: int | None = 422
    guesses = take_guesses(form, request.POST) if form.is_valid() else None
    if guesses is not None:
        try:
            before, after = start_pair(
                request.user,
                form,
                guesses,
                skipped=skip_said(request.POST),
                early=early_said(request.POST),
            )
        except RunRefused as exc:
            form.add_error(None, exc.message)
            status = exc.status
        else:
            status = None
    if status is not None:
        context = {"lab": lab, "form": form, "run": None, "unit": get_unit(lab.unit)}
        template = "labs/lab.html#lab-panel" if request.htmx else "labs/lab.html"
        return render(request, template, context, status=status)
    url = reverse("report", args=[before.id, after.id])
    if request.htmx:
        response = HttpResponseClientRedirect(url)
        response.status_code = 204  # nothing to swap: htmx only follows HX-Redirect
        return response
    return redirect(url)


@login_required
@require_GET
def report_pick(request: HtmxHttpRequest) -> HttpResponse:
    """Choose two of your trapped-service runs; a valid choice opens their report."""
    data = request.GET if "after" in request.GET else None
    form = ReportPickForm(request.user, data, initial={"before": request.GET.get("before")})
    if form.is_valid():
        before, after = form.cleaned_data["before"], form.cleaned_data["after"]
        return redirect("report", before.id, after.id)
    context = {"form": form, "limit": PICK_LIMIT}
    return render(request, "labs/report_pick.html", context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def report_detail(request: HtmxHttpRequest, before_id, after_id) -> HttpResponse:
    """The before/after report. Polled while either run works; answers 286 once both are done.

    A poll only reads: the sweeper fails a run whose worker died (`labs.runs.stale`)."""
    before, after = _report_runs(request, before_id, after_id)
    view = present_report(before, after)
    context = {"view": view, "links": _report_links(request, view)}
    if not request.htmx:
        context.update(_analysis_context(request, before, after), back_url=_back_url(request))
        return render(request, "labs/report.html", context)
    response = render(request, "labs/report.html#report-body", context)
    if view.finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


@login_required
@require_GET
def report_markdown(request: HtmxHttpRequest, before_id, after_id) -> HttpResponse:
    view = _finished_report(request, before_id, after_id)
    text = render_markdown(
        view.report, title=_report_title(view), links=_report_links(request, view)
    )
    analysis = analysis_of(view.before, view.after)
    if analysis is not None:
        text += analysis_markdown(analysis)
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_report_filename(view)}.md"'
    return response


@login_required
@require_GET
def report_json(request: HtmxHttpRequest, before_id, after_id) -> JsonResponse:
    view = _finished_report(request, before_id, after_id)
    analysis = analysis_of(view.before, view.after)
    data = view.report | {"analysis": analysis.to_json() if analysis else None}
    response = JsonResponse(data, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{_report_filename(view)}.json"'
    return response


@login_required
@require_POST
@vary_on_headers("HX-Request")
@idempotent
def report_analysis(request: HtmxHttpRequest, before_id, after_id) -> HttpResponse:
    """Save the student's analysis of their own pair as a draft, until the pair is handed in.

    htmx posts it a few seconds after each change (autosave) and answers with the status
    line only, so the textarea being typed in is never replaced; without JavaScript the
    Save button posts the whole form and comes back to the report.
    """
    before, after = _report_runs(request, before_id, after_id)
    if request.user.pk not in (before.owner_id,) or after.owner_id != before.owner_id:
        raise PermissionDenied(_("Only the student who made both runs can write their analysis."))
    analysis = analysis_of(before, after) or Analysis(
        owner=request.user, before=before, after=after
    )
    status, problem = 200, ""
    if pair_is_handed_in(before, after):
        form, status = AnalysisForm(instance=analysis), 409
        problem = _("This pair is handed in, so its analysis can no longer change.")
    else:
        form = AnalysisForm(request.POST, instance=analysis)
        if form.is_valid():
            analysis = form.save(commit=False)
            analysis.updated_at = timezone.now()
            analysis.save()
            if not request.htmx:
                return redirect(f"{reverse('report', args=[before.id, after.id])}#analysis")
        else:
            status = 422
    context = {
        "analysis_form": form,
        "analysis": analysis,
        "analysis_problem": problem,  # a handed-in pair's 409 says so, never "Draft saved"
        "view": {"before": before, "after": after},
    }
    if request.htmx:
        return render(request, "labs/analysis.html#analysis-status", context, status=status)
    context.update(
        _analysis_context(request, before, after), analysis_form=form, analysis_problem=problem
    )
    context["view"] = present_report(before, after)
    context["links"] = _report_links(request, context["view"])
    return render(request, "labs/report.html", context, status=status)


def _back_url(request: HtmxHttpRequest) -> str:
    """The page that sent the student here (an assignment's, to hand the pair in), if it is
    one of this site's own paths; else ""."""
    back = request.GET.get("back", "")
    safe = url_has_allowed_host_and_scheme(back, allowed_hosts=None)
    return back if safe and back.startswith("/") and not back.startswith("//") else ""


def _analysis_context(request: HtmxHttpRequest, before: Run, after: Run) -> dict:
    """The analysis for the page: a form for its author until handed in, else its text."""
    analysis = analysis_of(before, after)
    frozen = pair_is_handed_in(before, after)
    editable = not frozen and request.user.pk == before.owner_id == after.owner_id
    context: dict[str, Any] = {
        "analysis": analysis,
        "analysis_frozen": frozen,
        "analysis_editable": editable,
    }
    if editable:
        context["analysis_form"] = AnalysisForm(instance=analysis)
    return context


def _report_runs(request: HtmxHttpRequest, before_id, after_id) -> tuple[Run, Run]:
    """Both runs, if this user may open both and both are of the report's lab; else 404.

    A report compares its two runs and its link and downloads name them: a draft of the
    reader's among them is kept (`labs.web.keeping`; nothing is written for other runs).
    """
    runs = Run.objects.visible_to(request.user).filter(lab__in=reports.LABS)
    before, after = get_object_or_404(runs, pk=before_id), get_object_or_404(runs, pk=after_id)
    if before.lab != after.lab:
        raise Http404(_("A report compares two runs of one lab."))
    for run in (before, after):
        keep_shown(run, request.user)
    return before, after


def _finished_report(request: HtmxHttpRequest, before_id, after_id):
    view = present_report(*_report_runs(request, before_id, after_id))
    if view.report is None:
        raise Http404(_("The report is ready once both runs have succeeded."))
    return view


def _report_title(view) -> str:
    return _("Before/after report: %(lab)s, seed %(before)s / %(after)s") % {
        "lab": view.before.lab,
        "before": view.before.seed,
        "after": view.after.seed,
    }


def _report_filename(view) -> str:
    return f"report-{str(view.before.id)[:8]}-{str(view.after.id)[:8]}"


def _report_links(request: HtmxHttpRequest, view) -> dict[str, str]:
    def url(name: str, run: Run) -> str:
        return request.build_absolute_uri(reverse(name, args=[run.id]))

    return {
        "before": url("run-detail", view.before),
        "after": url("run-detail", view.after),
        "before_obligations": url("run-obligations", view.before),
        "after_obligations": url("run-obligations", view.after),
    }
