"""A lab that answers as its controls move: a draft run per settled change, and keeping one.

The lab page's `drafts.js` posts the form here about 100 ms after the last change
(`hx-sync="this:replace"`: an older request still in flight is dropped). The answer is the
run's body, which the page lands in place of the one it shows (the charts redrawn where
they are), and every field's message slot, swapped out of band: a refused value says why
next to its field and nothing runs. Run itself (`pages.lab_detail`) is unchanged, and is
all a page without JavaScript has.

Each post carries its place on its page (`draft_page`, `draft_post`); a post older than one
the server already took is answered "superseded": 204 and `Draft-Superseded: true`, no body,
nothing deleted or started (`labs.runs.draft_order`), and the page drops it unsaid.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from labs.catalogue.entries import get_lab
from labs.runs import drafts, ended
from labs.runs.dispatch import RunRefused
from labs.runs.execution import choose_seed
from labs.runs.models import Run
from labs.web.draft_order_form import DraftOrderForm
from labs.web.forms import LabForm
from labs.web.htmx import HtmxHttpRequest
from labs.web.idempotency import idempotent
from labs.web.keeping import keep_shown
from labs.web.predict import keep_early
from labs.web.presenters import present_run
from labs.web.responses import login_needed
from labs.web.views.runs import finished_fragment

# The header of a superseded draft's answer (kept with it for a replay: labs.web.idempotency).
SUPERSEDED = "Draft-Superseded"


@require_POST
@vary_on_headers("HX-Request")
@idempotent
def lab_draft(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Validate the form and start a draft run of it; answer its body and the messages."""
    lab = get_lab(slug)
    if lab is None:
        raise Http404(_("No such lab."))
    if not request.user.is_authenticated:
        return login_needed(request)
    if not drafts.instant(lab):
        return HttpResponse(
            _("This lab runs only when you press Run."),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    place = DraftOrderForm(request.POST)
    if not place.is_valid():
        return HttpResponse(place.reason(), status=400, content_type="text/plain; charset=utf-8")
    # A guess given at the first drag's ask goes with the draft it lets go: kept before the
    # draft starts, it counts as given before the draft's result (labs.runs.early_guesses).
    keep_early(request.user, lab, request.POST)
    form = LabForm(lab, request.POST)
    run, status = None, 200
    if not form.is_valid():
        status = 422
    elif not drafts.allowed(lab, form.params()):
        form.add_error(None, _("These values make a longer run: press Run to start it."))
        status = 409
    else:
        try:
            run = drafts.start_draft(
                request.user, lab, form.params(), choose_seed(lab, form.seed()), place.order()
            )
        except drafts.Superseded:
            return superseded()
        except RunRefused as exc:
            form.add_error(None, exc.message)
            status = exc.status
    body = ""
    if run is not None:
        run = ended.as_it_ends(run)  # a quick run usually ends in the moment it may wait
        if run.is_finished:
            body = finished_fragment(request, run, lab)
        else:
            context = {"run": run, "lab": lab, "view": present_run(run, lab), "panel": None}
            body = render_to_string("labs/run.html#run-body", context, request=request)
    context = {"lab": lab, "form": form, "body": mark_safe(body)}  # noqa: S308 - our template
    return render(request, "labs/draft.html", context, status=status)


def superseded() -> HttpResponse:
    """The answer to a post older than one already taken: nothing to show (drafts.js)."""
    response = HttpResponse(status=204)
    response[SUPERSEDED] = "true"
    return response


@login_required
@require_POST
def run_keep(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Keep a draft: it joins the history and is no longer deleted after the hour.

    The "Keep this run" button posts here, and so does a chart's PNG download on a draft
    (keep.js), which wants no page back: 204.
    """
    run = get_object_or_404(Run.objects.defer("own_result", "progress"), pk=run_id)
    if run.owner_id != request.user.pk:
        raise Http404(_("No such run, or it is not yours to see."))
    keep_shown(run, request.user)
    if request.htmx:
        return HttpResponse(status=204)
    return redirect(run)
