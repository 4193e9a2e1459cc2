"""Answers several views give: the run page, and the log-in prompt for a visitor.

Kept apart from `views/` so a feature's views (the capstone's) reuse them without
importing another feature's view module.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render, resolve_url
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect

from labs.catalogue.entries import get_lab
from labs.runs.models import Run
from labs.web import run_extras
from labs.web.forms import RunLabelForm
from labs.web.htmx import HtmxHttpRequest
from labs.web.presenters import present_panel, present_run


def run_page(request: HttpRequest, run: Run, *, status: int = 200, **extra) -> HttpResponse:
    """A run's whole page, with `extra` in its context (a form's errors, a message)."""
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
    controls = run_extras.panel_for(run, request.user)
    if controls is not None:
        context["controls"] = controls
    return render(request, "labs/run.html", context, status=status)


def login_needed(request: HtmxHttpRequest) -> HttpResponse:
    """Anonymous visitors may read lessons; running a lab needs an account."""
    if request.htmx:
        response = HttpResponseClientRedirect(
            f"{resolve_url(settings.LOGIN_URL)}?next={request.path}",
            content=_("Log in to run labs."),
        )
        response.status_code = 401  # htmx follows HX-Redirect whatever the status
        return response
    return redirect_to_login(request.get_full_path())
