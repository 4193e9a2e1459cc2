"""A finished experiment whose retained queue drains still counts as a running experiment.

`Run.drain_until` says so until the drain ends: set when a redrive starts a drain task
(`labs.runs.dispatch`), renewed by each drain task and cleared when it ends
(`labs.runs.tasks`); the caps read it (`labs.runs.admission`).
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from labs.runs import retained_queue
from labs.runs.models import Run


def hold_drain(run_pk) -> None:
    """Mark the run draining for one drain task's length (and a margin)."""
    until = timezone.now() + timedelta(seconds=retained_queue.LOCK_S + retained_queue.DRAIN_MAX_S)
    Run.objects.filter(pk=run_pk).update(drain_until=until)


def end_drain(run_pk) -> None:
    """The drain is over: the run no longer counts against the experiment cap."""
    Run.objects.filter(pk=run_pk).update(drain_until=None)
