"""An assignment's before/after pair, run from the assignment's own page.

The lab page's "Run before/after" knows nothing of assignments: from an assignment it would
read the locked presets from the request and answer with the plain lab's panel. This view
takes the locked values from the assignment (never from the POST) and, when the form is
wrong or a cap refuses, answers with the assignment's panel again.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from labs.capstone.pair_run import start_pair
from labs.runs.dispatch import RunRefused
from labs.web.htmx import HtmxHttpRequest
from labs.web.idempotency import idempotent
from labs.web.predict import early_said, skip_said, take_guesses
from teaching.access import assignment_for
from teaching.views import LAB_GONE, _assignment_page, _lab_form, _panel_urls


@login_required
@require_POST
@vary_on_headers("HX-Request")
@idempotent
def assignment_pair(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """Run the assignment's lab twice with one seed, controls off then on; open the report."""
    assignment, role = assignment_for(request.user, assignment_id)
    lab = assignment.get_lab()
    if lab is None or not lab.before_after:
        return HttpResponse(LAB_GONE, status=409)
    form = _lab_form(assignment, lab, request.POST)
    htmx = bool(request.htmx)
    status = 422
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
            back = urlencode({"back": assignment.get_absolute_url()})
            url = f"{reverse('report', args=[before.id, after.id])}?{back}"
            if htmx:
                response = HttpResponseClientRedirect(url)
                response.status_code = 204  # nothing to swap: htmx only follows HX-Redirect
                return response
            return redirect(url)
    if not htmx:
        return _assignment_page(request, assignment, role, status=status, form=form)
    context = {"lab": lab, "form": form, "run": None, **_panel_urls(assignment, role)}
    return render(request, "labs/lab.html#lab-panel", context, status=status)
