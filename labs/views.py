"""Pages of the lab site. Each view: check access → validate → save → enqueue → render.

A view answers an htmx request with the page's fragment and a plain request with the
whole page (same template, `#fragment` picks the part), so everything works without
JavaScript too. Responses that differ that way carry `Vary: HX-Request`.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from labs.catalogue import get_lab, labs_for_unit
from labs.dispatch import RunRefused, start_run
from labs.execution import choose_seed
from labs.forms import LabForm
from labs.models import Run
from labs.presenters import present_run
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
def my_runs(request: HttpRequest) -> HttpResponse:
    runs = Run.objects.visible_to(request.user).defer("result", "progress")[:200]
    return render(request, "labs/runs.html", {"runs": runs})


def _login_needed(request: HttpRequest) -> HttpResponse:
    """Anonymous visitors may read lessons; running a lab needs an account."""
    if request.htmx:
        response = HttpResponse("Log in to run labs.", status=401)
        response["HX-Redirect"] = f"{resolve_url(settings.LOGIN_URL)}?next={request.path}"
        return response
    return redirect_to_login(request.get_full_path())
