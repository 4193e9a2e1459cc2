"""The queue panel of a finished real-queue experiment: look at the retained DLQ, redrive, purge."""

from __future__ import annotations

import redis
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.runs import retained_caps, retained_queue
from labs.runs.admission import CapReached
from labs.runs.dispatch import admit_drain, start_drain
from labs.runs.models import Run
from labs.web.forms import (
    PurgeForm,
    RedriveForm,
)
from labs.web.htmx import HtmxHttpRequest
from labs.web.presenters import present_panel
from labs.web.responses import run_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def queue_panel(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """A finished experiment's queue panel, polled by htmx while a redrive or drain goes on."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(run.lab)
    if lab is None or lab.kind != "experiment":
        raise Http404(_("This lab has no queue panel."))
    if not request.htmx:
        return redirect(f"{run.get_absolute_url()}#queue")
    return _panel_response(request, run, lab)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def queue_redrive(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Redrive one parked message now, or (no id) the whole DLQ at a bounded rate; then drain."""

    def redrive(run: Run, cleaned: dict) -> str:
        try:
            admit_drain(run)  # before anything moves: a refused redrive changes nothing
        except CapReached as exc:
            raise _Refused(str(exc), 429) from exc
        msg_id = cleaned["message"]
        if msg_id:
            if not retained_queue.redrive_one(run.pk, msg_id):
                raise _Refused(
                    _("%(id)s is not in the dead-letter queue (any more).") % {"id": msg_id}, 409
                )
            done = _("Moved %(id)s back to the queue; the fixed consumer will make it.") % {
                "id": msg_id
            }
        else:
            count = retained_queue.ask_redrive_all(run.pk)
            if not count:
                raise _Refused(_("The dead-letter queue is empty: nothing to redrive."), 409)
            done = ngettext(
                "Redriving the %(n)d message of the DLQ, at most %(rate)s a second; "
                "the fixed consumer makes it as it comes.",
                "Redriving the %(n)d messages of the DLQ, at most %(rate)s a second; "
                "the fixed consumer makes them as they come.",
                count,
            ) % {"n": count, "rate": f"{retained_queue.REDRIVE_RATE_PER_S:g}"}
        start_drain(run)
        return done

    return _panel_action(request, run_id, RedriveForm, redrive)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def queue_purge(request: HtmxHttpRequest, run_id) -> HttpResponse:
    """Delete every message of the retained queue or of its DLQ, for good."""

    def purge(run: Run, cleaned: dict) -> str:
        what = cleaned["what"]
        deleted = retained_queue.purge(run.pk, what)
        name = PurgeForm.WHAT[what]
        return ngettext(
            "Purged %(what)s: %(n)d message deleted.",
            "Purged %(what)s: %(n)d messages deleted.",
            deleted,
        ) % {"what": name, "n": deleted}

    return _panel_action(request, run_id, PurgeForm, purge)


class _Refused(Exception):
    """An action the queue cannot do now; the panel shows `message` with `status`."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _panel_action(request: HtmxHttpRequest, run_id, form_class, act) -> HttpResponse:
    """The shared path of a panel action: owner only, run finished, form valid, queue kept.

    `act(run, cleaned_data)` does the work and returns what to tell the user.
    """
    run, lab = _queue_owned_by(request, run_id)
    if not run.is_finished:
        return _panel_response(request, run, lab, str(STILL_RUNNING), 409)
    form = form_class(request.POST)
    if not form.is_valid():
        return _panel_response(request, run, lab, _errors(form), 422)
    try:
        _check_queue_open(run)
        done = act(run, form.cleaned_data)
    except _Refused as exc:
        return _panel_response(request, run, lab, exc.message, exc.status)
    except retained_queue.QueueGone as exc:
        return _panel_response(
            request, run, lab, retained_queue.gone_reason(run.finished_at, exc), 410
        )
    except redis.RedisError:
        return _panel_response(request, run, lab, str(REDIS_DOWN), 503)
    return _panel_response(request, run, lab, done)


REDIS_DOWN = gettext_lazy("The queue panel cannot reach Redis just now. Try again shortly.")


def _queue_owned_by(request: HtmxHttpRequest, run_id) -> tuple[Run, Lab]:
    """The run whose queue the user may act on: 404 if they cannot see it, 403 if not theirs."""
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    lab = get_lab(run.lab)
    if lab is None or lab.kind != "experiment" or not lab.keeps_dlq:
        raise Http404(_("This run has no queue panel."))
    if run.owner_id != request.user.pk:
        raise PermissionDenied(_("Only the person who made this run can act on its queue."))
    return run, lab


def _check_queue_open(run: Run) -> None:
    """Raise QueueGone with the reason when the run has no retained queue (any more)."""
    if run.status == Run.Status.FAILED:
        raise retained_queue.QueueGone(_("This run failed, so its queues were deleted."))
    if run.dlq_note:
        raise retained_queue.QueueGone(retained_caps.note_for(run.dlq_note))


STILL_RUNNING = gettext_lazy(
    "The experiment is still running: its queue is its own until it ends. The panel opens "
    "on its dead-letter queue as soon as it has finished."
)


def _errors(form) -> str:
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def _panel_response(
    request: HtmxHttpRequest, run: Run, lab: Lab, message: str = "", status: int = 200
) -> HttpResponse:
    """The panel fragment (htmx), or back to the run page with the message (a plain form)."""
    if not request.htmx:
        if status == 200:
            if message:
                messages.success(request, message)
            return redirect(f"{run.get_absolute_url()}#queue")
        return run_page(request, run, status=status, page_error=message)
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
