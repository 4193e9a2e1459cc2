"""Pages of the lab site. Each view: check access → validate → save → enqueue → render.

A view answers an htmx request with the page's fragment and a plain request with the
whole page (same template, `#fragment` picks the part), so everything works without
JavaScript too. Responses that differ that way carry `Vary: HX-Request`.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from labs import reports
from labs.catalogue import get_lab, labs_for_unit
from labs.dispatch import RunnerOffline, check_broker, enqueue
from labs.execution import choose_seed
from labs.forms import LabForm, ReportPickForm
from labs.models import Run
from labs.operator import obligations_view
from labs.presenters import present_report, present_run
from labs.report_markdown import render as render_markdown
from labs.runners.trapped_service import pair_params
from labs.units import UNITS, get_unit


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
    run = None
    status = _cannot_start(request, form, runs=1)
    if status is None:
        status = 200
        seed = choose_seed(lab, form.seed())
        run = Run.objects.create(owner=request.user, lab=lab.slug, params=form.params(), seed=seed)
        enqueue(run, lab)
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
    context = {"run": run, "lab": lab, "view": present_run(run, lab)}
    if not request.htmx:
        return render(request, "labs/run.html", context)
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
    status = _cannot_start(request, form, runs=2)
    if status is not None:
        context = {"lab": lab, "form": form, "run": None, "unit": get_unit(lab.unit)}
        template = "labs/lab.html#lab-panel" if request.htmx else "labs/lab.html"
        return render(request, template, context, status=status)
    seed = choose_seed(lab, form.seed())
    before_params, after_params = pair_params(form.params())
    with transaction.atomic():
        before = Run.objects.create(
            owner=request.user, lab=lab.slug, params=before_params, seed=seed
        )
        after = Run.objects.create(owner=request.user, lab=lab.slug, params=after_params, seed=seed)
    enqueue(before, lab)
    enqueue(after, lab)
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
def my_runs(request: HttpRequest) -> HttpResponse:
    runs = Run.objects.visible_to(request.user).defer("result", "progress")[:200]
    return render(request, "labs/runs.html", {"runs": runs})


def _cannot_start(request: HttpRequest, form: LabForm, *, runs: int) -> int | None:
    """Why `runs` new runs cannot start, as the status to answer with (the form says why)."""
    if not form.is_valid():
        return 422
    if _too_many_active(request.user, runs):
        limit = settings.LAB_MAX_ACTIVE_RUNS_PER_USER
        reason = (
            f"You already have {limit} runs going"
            if runs == 1
            else f"This starts {runs} runs, and you may have at most {limit} going at once"
        )
        form.add_error(None, f"{reason}. Wait for one to finish, then press Run again.")
        return 429
    try:
        check_broker()
    except RunnerOffline as exc:
        form.add_error(None, str(exc))
        return 503
    return None


def _too_many_active(user, runs: int = 1) -> bool:
    # Counted on the owner on purpose: the cap is about the runs this user started.
    active = Run.objects.filter(owner=user).active().count()
    return active + runs > settings.LAB_MAX_ACTIVE_RUNS_PER_USER


def _login_needed(request: HttpRequest) -> HttpResponse:
    """Anonymous visitors may read lessons; running a lab needs an account."""
    if request.htmx:
        response = HttpResponse("Log in to run labs.", status=401)
        response["HX-Redirect"] = f"{resolve_url(settings.LOGIN_URL)}?next={request.path}"
        return response
    return redirect_to_login(request.get_full_path())
