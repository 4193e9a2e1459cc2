"""Share this setup: a short link to a lab with these values, in this language
(labs.runs.shares); opening it needs no account."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from labs.catalogue.entries import get_lab
from labs.runs.shares import share, shared
from labs.web.forms import LabForm
from labs.web.htmx import HtmxHttpRequest


@login_required
@require_POST
def lab_share(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Keep the form's values (valid ones only) and answer the short link to them."""
    lab = get_lab(slug)
    if lab is None:
        raise Http404(_("No such lab."))
    form = LabForm(lab, request.POST)
    if not form.is_valid():
        context = {"lab": lab, "refused": _("Fix the values marked on the form first.")}
        return render(request, "labs/share.html", context, status=422)
    names = [p.name for p in lab.params] + (["seed"] if "seed" in form.fields else [])
    values = {name: request.POST.get(name, "") for name in names if name in request.POST}
    setup = share(lab.slug, values, get_language() or settings.LANGUAGE_CODE)
    link = request.build_absolute_uri(reverse("shared-setup", args=[setup.code]))
    return render(request, "labs/share.html", {"lab": lab, "link": link})


@require_GET
def shared_setup(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Open the lab with the shared values, in the language it was shared in."""
    setup = shared(code)
    if setup is None or get_lab(setup.lab) is None:
        raise Http404(_("No such shared setup."))
    url = reverse("lab-detail", args=[setup.lab]) + "?" + urlencode(setup.values)
    response = HttpResponseRedirect(url)
    if not request.user.is_authenticated:  # a signed-in reader keeps their own language
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, setup.language, samesite="Lax")
    return response
