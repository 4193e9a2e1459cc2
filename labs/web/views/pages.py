"""The course pages: home, a unit with its labs, a lab's form (a POST starts a run)."""

from __future__ import annotations

import hashlib
import json

from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from labs.catalogue.entries import get_lab, labs_for_unit
from labs.catalogue.units import UNITS, get_unit
from labs.runs import ended
from labs.web import fragment_cache, run_extras
from labs.web.forms import LabForm
from labs.web.htmx import HtmxHttpRequest
from labs.web.idempotency import idempotent
from labs.web.presenters import present_run, production_for
from labs.web.responses import login_needed
from labs.web.start import run_from_form
from labs.web.try_next import initial_from_query
from labs.web.views.runs import finished_fragment


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    units = [(unit, labs_for_unit(unit.slug)) for unit in UNITS]
    return render(request, "labs/home.html", {"units": units})


@require_GET
def unit_detail(request: HtmxHttpRequest, unit_slug: str) -> HttpResponse:
    unit = get_unit(unit_slug)
    if unit is None:
        raise Http404(_("No such unit."))
    # The prose comes in the reader's language from the template ({% unit_prose %}).
    return render(request, "labs/unit.html", {"unit": unit, "labs": labs_for_unit(unit.slug)})


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@idempotent
def lab_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The lab's form; a POST validates it and starts a run."""
    lab = get_lab(slug)
    if lab is None:
        raise Http404(_("No such lab."))
    if request.method == "GET":
        # A "try next" link carries the values to start from in its query string.
        initial = initial_from_query(lab.params, request.GET)
        context = {
            "lab": lab,
            "form": LabForm(lab, initial=initial),
            "unit": get_unit(lab.unit),
            "production": production_for(lab, initial),
        }
        return render(request, "labs/lab.html", context)

    if not request.user.is_authenticated:
        return login_needed(request)
    form = LabForm(lab, request.POST)
    run, status = run_from_form(request.user, form, request.POST)
    if run is not None and not request.htmx:
        return redirect(run)

    context = {"lab": lab, "form": form, "run": run, "unit": get_unit(lab.unit)}
    if run is not None:
        # A quick run usually ends while the press waits a moment: answer with its chart.
        run = context["run"] = ended.as_it_ends(run)
        if run.is_finished and lab.kind == "sim":
            context["run_body"] = finished_fragment(request, run, lab)
            context["view"] = present_run(run, lab, charts=False)
        else:
            context["view"] = present_run(run, lab)
        context["fields_html"] = valid_fields_html(lab, form)
        context["controls"] = run_extras.panel_for(run, request.user)
    template = "labs/lab.html#lab-panel" if request.htmx else "labs/lab.html"
    return render(request, template, context, status=status)


def valid_fields_html(lab, form: LabForm) -> str:
    """A valid form's fields, rendered once per lab, language and values for every process.

    The answer to a Run press carries the form back (about 30 widgets, most of the press's
    CPU); a class pressing Run on the same values gets one render between them. The seed is
    left out of the key and written into the cached HTML: a class asked to pick a seed each
    shares one render too (the seed shows only in its own box). Only a valid form: one with
    errors shows them, and is rendered for its sender.
    """
    data = form.data
    assert isinstance(data, QueryDict)  # a bound form: the POST
    seed = data.get("seed", "") if "seed" in form.fields else ""
    own_seed = seed.isascii() and seed.isdigit()
    names = [name for name in form.fields if not (own_seed and name == "seed")]
    values = json.dumps([(name, data.getlist(name)) for name in names], separators=(",", ":"))
    digest = hashlib.sha256(values.encode()).hexdigest()[:24]
    key = f"lab-fields:{fragment_cache.render_version()}:{lab.slug}:{get_language()}:{digest}"
    if not own_seed:
        html = fragment_cache.cached_html(key, lambda: _fields_html(lab, form))
        return mark_safe(html)  # noqa: S308 - our own template's output
    html = fragment_cache.cached_html(key + ":seed", lambda: _fields_html(lab, form, SEED_SLOT))
    if html.count(SEED_SLOT) != 1:  # not where we expect it: render this one as it is
        html = _fields_html(lab, form)
    return mark_safe(html.replace(SEED_SLOT, seed))  # noqa: S308 - digits into our own output


# What the seed's box shows in the cached fields, replaced by the student's own seed.
SEED_SLOT = "SEED-SLOT-7f3a9c"


def _fields_html(lab, form: LabForm, seed: str | None = None) -> str:
    """The form's fields; with `seed`, showing it in the seed's box (the form was already
    cleaned with the real one, so nothing is validated again)."""
    if seed is None:
        return render_to_string("labs/lab.html#lab-fields", {"form": form, "lab": lab})
    real = form.data
    assert isinstance(real, QueryDict)  # a bound form: the POST
    shown = real.copy()
    shown["seed"] = seed
    form.data = shown
    try:
        return render_to_string("labs/lab.html#lab-fields", {"form": form, "lab": lab})
    finally:
        form.data = real
