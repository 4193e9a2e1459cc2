"""Pages of the lab site. Each view: check access → validate → save → enqueue → render.

A view answers an htmx request with the page's fragment and a plain request with the
whole page (same template, `#fragment` picks the part), so everything works without
JavaScript too. Responses that differ that way carry `Vary: HX-Request`.
"""

from __future__ import annotations

from urllib.parse import urlencode

import redis
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from labs import kept_queue, reports
from labs.catalogue import LABS, Lab, get_lab, labs_for_unit
from labs.compare import compare_runs
from labs.dispatch import RunRefused, start_drain, start_run, start_runs
from labs.execution import choose_seed
from labs.exports import csv_response, series_rows
from labs.forms import (
    CompareForm,
    LabForm,
    PurgeForm,
    RedriveForm,
    ReportPickForm,
    RunFilterForm,
    RunLabelForm,
)
from labs.models import Run
from labs.operator import obligations_view
from labs.presenters import present_panel, present_report, present_run
from labs.report_markdown import render as render_markdown
from labs.runners.trapped_service import pair_params
from labs.units import UNITS, get_unit

NO_LAB = "This lab no longer exists, so the run cannot be repeated."


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    units = [(unit, labs_for_unit(unit.slug)) for unit in UNITS]
    return render(request, "labs/home.html", {"units": units})


@require_GET
def unit_detail(request: HttpRequest, unit_slug: str) -> HttpResponse:
    unit = get_unit(unit_slug)
    if unit is None:
        raise Http404("No such unit.")
    panels = [{"lab": lab, "form": LabForm(lab)} for lab in labs_for_unit(unit.slug)]
    return render(
        request,
        "labs/unit.html",
        {"unit": unit, "panels": panels, "explanation": f"labs/units/{unit.slug}.html"},
    )


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def lab_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The lab's form; a POST validates it and starts a run."""
    lab = get_lab(slug)
    if lab is None:
        raise Http404("No such lab.")
    if request.method == "GET":
        context = {"lab": lab, "form": LabForm(lab), "unit": get_unit(lab.unit)}
        return render(request, "labs/lab.html", context)

    if not request.user.is_authenticated:
        return _login_needed(request)
    form = LabForm(lab, request.POST)
    status = 200
    run = None
    if not form.is_valid():
        status = 422
    else:
        try:
            run = start_run(request.user, lab, form.params(), choose_seed(lab, form.seed()))
        except RunRefused as exc:
            form.add_error(None, exc.message)
            status = exc.status
        else:
            if not request.htmx:
                return redirect(run)

    context = {
        "lab": lab,
        "form": form,
        "run": run,
        "view": present_run(run, lab) if run else None,
        "unit": get_unit(lab.unit),
    }
    template = "labs/lab.html#lab-panel" if request.htmx else "labs/lab.html"
    return render(request, template, context, status=status)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def run_detail(request: HttpRequest, run_id) -> HttpResponse:
    """A run's permalink. Polled by htmx while it runs; answers 286 once it is done."""
    Run.objects.fail_stale()
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(run.lab)
    if not request.htmx:
        return _run_page(request, run)
    context = {
        "run": run,
        "lab": lab,
        "view": present_run(run, lab),
        "panel": present_panel(run, lab, request.user),
    }
    response = render(request, "labs/run.html#run-body", context)
    if run.is_finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


@login_required
@require_GET
def run_json(request: HttpRequest, run_id) -> JsonResponse:
    """The saved run as JSON: parameters, seed, status, timings and result."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    return JsonResponse(
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
            "result": run.result,
        }
    )


@login_required
@require_GET
def run_obligations(request: HttpRequest, run_id) -> HttpResponse:
    """The operator view of a trapped-service run: its payments by state, and who owns them."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id, lab=reports.LAB)
    view = None
    if run.status == Run.Status.SUCCEEDED:
        view = obligations_view(run.result)
    return render(request, "labs/obligations.html", {"run": run, "view": view})


@require_POST
@vary_on_headers("HX-Request")
def report_pair(request: HttpRequest) -> HttpResponse:
    """Run the lab's form twice with one seed, controls off then on, and open their report."""
    lab = get_lab(reports.LAB)
    if not request.user.is_authenticated:
        return _login_needed(request)
    form = LabForm(lab, request.POST)
    status = 422
    if form.is_valid():
        seed = choose_seed(lab, form.seed())
        before_params, after_params = pair_params(form.params())
        try:
            before, after = start_runs(
                request.user, lab, [(before_params, seed), (after_params, seed)]
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
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


@login_required
@require_GET
def report_pick(request: HttpRequest) -> HttpResponse:
    """Choose two of your trapped-service runs; a valid choice opens their report."""
    data = request.GET if "after" in request.GET else None
    form = ReportPickForm(request.user, data, initial={"before": request.GET.get("before")})
    if form.is_valid():
        before, after = form.cleaned_data["before"], form.cleaned_data["after"]
        return redirect("report", before.id, after.id)
    return render(request, "labs/report_pick.html", {"form": form})


@login_required
@require_GET
@vary_on_headers("HX-Request")
def report_detail(request: HttpRequest, before_id, after_id) -> HttpResponse:
    """The before/after report. Polled while either run works; answers 286 once both are done."""
    Run.objects.fail_stale()
    view = present_report(*_report_runs(request, before_id, after_id))
    context = {"view": view, "links": _report_links(request, view)}
    if not request.htmx:
        return render(request, "labs/report.html", context)
    response = render(request, "labs/report.html#report-body", context)
    if view.finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


@login_required
@require_GET
def report_markdown(request: HttpRequest, before_id, after_id) -> HttpResponse:
    view = _finished_report(request, before_id, after_id)
    text = render_markdown(
        view.report, title=_report_title(view), links=_report_links(request, view)
    )
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_report_filename(view)}.md"'
    return response


@login_required
@require_GET
def report_json(request: HttpRequest, before_id, after_id) -> JsonResponse:
    view = _finished_report(request, before_id, after_id)
    response = JsonResponse(view.report, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{_report_filename(view)}.json"'
    return response


def _report_runs(request: HttpRequest, before_id, after_id) -> tuple[Run, Run]:
    """Both runs, if this user may open both and both are of the report's lab; else 404."""
    runs = Run.objects.visible_to(request.user).filter(lab=reports.LAB)
    return get_object_or_404(runs, pk=before_id), get_object_or_404(runs, pk=after_id)


def _finished_report(request: HttpRequest, before_id, after_id):
    view = present_report(*_report_runs(request, before_id, after_id))
    if view.report is None:
        raise Http404("The report is ready once both runs have succeeded.")
    return view


def _report_title(view) -> str:
    return f"Before/after report: {reports.LAB}, seed {view.before.seed} / {view.after.seed}"


def _report_filename(view) -> str:
    return f"report-{str(view.before.id)[:8]}-{str(view.after.id)[:8]}"


def _report_links(request: HttpRequest, view) -> dict[str, str]:
    def url(name: str, run: Run) -> str:
        return request.build_absolute_uri(reverse(name, args=[run.id]))

    return {
        "before": url("run-detail", view.before),
        "after": url("run-detail", view.after),
        "before_obligations": url("run-obligations", view.before),
        "after_obligations": url("run-obligations", view.after),
    }


@login_required
@require_GET
@vary_on_headers("HX-Request")
def my_runs(request: HttpRequest) -> HttpResponse:
    """A student's history: their own runs only, newest first, optionally of one lab."""
    form = RunFilterForm(request.GET or None)
    runs = Run.objects.filter(owner=request.user).defer("result", "progress")
    status = 200
    if form.is_bound and not form.is_valid():
        runs, status = runs.none(), 400
    elif form.is_bound and form.cleaned_data["lab"]:
        runs = runs.filter(lab=form.cleaned_data["lab"])
    titles = {lab.slug: lab.title for lab in LABS}
    rows = [(run, titles.get(run.lab, run.lab)) for run in runs[:200]]
    context = {"rows": rows, "form": form}
    template = "labs/runs.html#run-list" if request.htmx else "labs/runs.html"
    return render(request, template, context, status=status)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def run_label(request: HttpRequest, run_id) -> HttpResponse:
    """Give a run a name and a note. Only its owner may; a teacher who can see it may not."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    if run.owner_id != request.user.pk:
        raise PermissionDenied("Only the person who made this run can name it.")
    form = RunLabelForm(request.POST, instance=run)
    status = 200
    if form.is_valid():
        form.save()
        if not request.htmx:
            messages.success(request, "Saved the run's name and note.")
            return redirect(run)
    else:
        status = 422
    if request.htmx:
        context = {"run": run, "label_form": form, "saved": status == 200}
        return render(request, "labs/run.html#run-label", context, status=status)
    return _run_page(request, run, status=status, label_form=form)


@login_required
@require_GET
def run_csv(request: HttpRequest, run_id) -> HttpResponse:
    """The run's time series as CSV, one row per step, columns as the lab saved them."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    if run.status != Run.Status.SUCCEEDED or not run.result:
        return HttpResponse(
            f"This run is {run.status}: only a finished, successful run has a time series.",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    columns, rows = series_rows(run.result)
    return csv_response(f"{run.lab}-{str(run.pk)[:8]}.csv", columns, rows)


@login_required
@require_POST
def run_rerun(request: HttpRequest, run_id) -> HttpResponse:
    """Run the same lab again with this run's exact parameters and seed, then compare."""
    original = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(original.lab)
    if lab is None:
        return _run_page(request, original, status=409, rerun_error=NO_LAB)
    try:
        again = start_run(request.user, lab, original.params, original.seed)
    except RunRefused as exc:
        return _run_page(request, original, status=exc.status, rerun_error=exc.message)
    query = urlencode([("run", original.pk), ("run", again.pk)])
    return redirect(f"{reverse('run-compare')}?{query}")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def run_compare(request: HttpRequest) -> HttpResponse:
    """Two runs of one lab: figures side by side, series overlaid. Polls until both finish."""
    form = CompareForm(request.user, request.GET)
    if form.has_error("run", "invalid_choice"):
        raise Http404("No such run, or it is not yours to see.")
    if not form.is_valid():
        return render(request, "labs/compare.html", {"form": form}, status=400)
    Run.objects.fail_stale()
    a, b = form.cleaned_data["run"]
    lab = get_lab(a.lab)
    context = {"form": form, "lab": lab, "cmp": compare_runs(a, b, lab)}
    if not request.htmx:
        return render(request, "labs/compare.html", context)
    response = render(request, "labs/compare.html#comparison", context)
    if context["cmp"].finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


@login_required
@require_GET
@vary_on_headers("HX-Request")
def queue_panel(request: HttpRequest, run_id) -> HttpResponse:
    """A finished experiment's queue panel, polled by htmx while a redrive or drain goes on."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(run.lab)
    if lab is None or lab.kind != "experiment":
        raise Http404("This lab has no queue panel.")
    if not request.htmx:
        return redirect(f"{run.get_absolute_url()}#queue")
    return _panel_response(request, run, lab)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def queue_redrive(request: HttpRequest, run_id) -> HttpResponse:
    """Redrive one parked message now, or (no id) the whole DLQ at a bounded rate; then drain."""
    run, lab = _queue_owned_by(request, run_id)
    if not run.is_finished:
        return _panel_response(request, run, lab, STILL_RUNNING, 409)
    form = RedriveForm(request.POST)
    if not form.is_valid():
        return _panel_response(request, run, lab, _errors(form), 422)
    msg_id = form.cleaned_data["message"]
    try:
        _check_queue_open(run)
        if msg_id:
            if not kept_queue.redrive_one(run.pk, msg_id):
                return _panel_response(
                    request, run, lab, f"{msg_id} is not in the dead-letter queue (any more).", 409
                )
            done = f"Moved {msg_id} back to the queue; the fixed consumer will make it."
        else:
            count = kept_queue.ask_redrive_all(run.pk)
            if not count:
                return _panel_response(
                    request, run, lab, "The dead-letter queue is empty: nothing to redrive.", 409
                )
            done = (
                f"Redriving the {count} message(s) of the DLQ, at most "
                f"{kept_queue.REDRIVE_RATE_PER_S:g} a second; the fixed consumer makes them "
                "as they come."
            )
        start_drain(run)
    except kept_queue.QueueGone as exc:
        return _panel_response(request, run, lab, str(exc), 410)
    except redis.RedisError:
        return _panel_response(request, run, lab, REDIS_DOWN, 503)
    return _panel_response(request, run, lab, done)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def queue_purge(request: HttpRequest, run_id) -> HttpResponse:
    """Delete every message of the kept queue or of its DLQ, for good."""
    run, lab = _queue_owned_by(request, run_id)
    if not run.is_finished:
        return _panel_response(request, run, lab, STILL_RUNNING, 409)
    form = PurgeForm(request.POST)
    if not form.is_valid():
        return _panel_response(request, run, lab, _errors(form), 422)
    what = form.cleaned_data["what"]
    try:
        _check_queue_open(run)
        deleted = kept_queue.purge(run.pk, what)
    except kept_queue.QueueGone as exc:
        return _panel_response(request, run, lab, str(exc), 410)
    except redis.RedisError:
        return _panel_response(request, run, lab, REDIS_DOWN, 503)
    name = dict(form.fields["what"].choices)[what]
    return _panel_response(request, run, lab, f"Purged {name}: {deleted} message(s) deleted.")


REDIS_DOWN = "The queue panel cannot reach Redis just now. Try again shortly."


def _queue_owned_by(request: HttpRequest, run_id) -> tuple[Run, Lab]:
    """The run whose queue the user may act on: 404 if they cannot see it, 403 if not theirs."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(run.lab)
    if lab is None or lab.kind != "experiment" or not lab.keeps_dlq:
        raise Http404("This run has no queue panel.")
    if run.owner_id != request.user.pk:
        raise PermissionDenied("Only the person who made this run can act on its queue.")
    return run, lab


def _check_queue_open(run: Run) -> None:
    """Raise QueueGone with the reason when the run has no kept queue (any more)."""
    if run.status == Run.Status.FAILED:
        raise kept_queue.QueueGone("This run failed, so its queues were deleted.")


STILL_RUNNING = (
    "The experiment is still running: its queue is its own until it ends. The panel opens "
    "on its dead-letter queue as soon as it has finished."
)


def _errors(form) -> str:
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def _panel_response(
    request: HttpRequest, run: Run, lab: Lab, message: str = "", status: int = 200
) -> HttpResponse:
    """The panel fragment (htmx), or back to the run page with the message (a plain form)."""
    if not request.htmx:
        if status == 200:
            if message:
                messages.success(request, message)
            return redirect(f"{run.get_absolute_url()}#queue")
        return _run_page(request, run, status=status, page_error=message)
    panel = present_panel(run, lab, request.user)
    context = {
        "run": run,
        "panel": panel,
        "panel_message": message,
        "panel_failed": status != 200,
    }
    response = render(request, "labs/run.html#queue-panel", context, status=status)
    if status == 200 and request.method == "GET" and not (panel and panel.polling):
        response.status_code = HttpResponseStopPolling.status_code
    return response


def _run_page(request: HttpRequest, run: Run, *, status: int = 200, **extra) -> HttpResponse:
    lab = get_lab(run.lab)
    context = {
        "run": run,
        "lab": lab,
        "view": present_run(run, lab),
        "panel": present_panel(run, lab, request.user),
        **extra,
    }
    if run.owner_id == request.user.pk:
        context.setdefault("label_form", RunLabelForm(instance=run))
    return render(request, "labs/run.html", context, status=status)


def _login_needed(request: HttpRequest) -> HttpResponse:
    """Anonymous visitors may read lessons; running a lab needs an account."""
    if request.htmx:
        response = HttpResponse("Log in to run labs.", status=401)
        response["HX-Redirect"] = f"{resolve_url(settings.LOGIN_URL)}?next={request.path}"
        return response
    return redirect_to_login(request.get_full_path())
