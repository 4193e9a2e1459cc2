"""Turns on the heavy pool: a student's real experiments run one at a time.

An experiment holds a heavy worker process for up to `LAB_EXPERIMENT_BUDGET_S` (110 s), and
the caps let a student have two going. Without turns, one student's two trapped-live runs
took both processes of the default heavy worker and every other student's experiment
waited behind them (3.0 s became 75.5 s). With turns, a student's experiment is only
kept by the worker that claimed it while none of their other experiments is running (with
a live lease); otherwise it is given back and its task sent to the heavy queue again, to
try in `TURN_WAIT_S`, and the processes go to other students' runs meanwhile. The bound
it gives: docs/ARCHITECTURE.md, "Fair use of the workers".
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from labs.runs.admission import experiment_slugs
from labs.runs.models import Run

# How soon a run that waits for its owner's other experiment asks again: short against an
# experiment's seconds, long enough that a waiting task costs the broker next to nothing.
TURN_WAIT_S = 2


def other_experiment_running(run_id) -> bool:
    """Whether the run is an experiment whose owner has another experiment running now
    (always False with `LAB_EXPERIMENT_TURNS` off)."""
    if not settings.LAB_EXPERIMENT_TURNS:
        return False
    row = Run.objects.filter(pk=run_id).values("owner_id", "lab").first()
    if row is None or row["owner_id"] is None or row["lab"] not in experiment_slugs():
        return False
    return (
        Run.objects.filter(
            owner_id=row["owner_id"],
            lab__in=experiment_slugs(),
            status=Run.Status.RUNNING,
            lease_expires_at__gt=timezone.now(),
        )
        .exclude(pk=run_id)
        .exists()
    )


def waiting_for_their_turn() -> Q:
    """Queued experiments whose owner has another experiment running: they wait for their
    owner, not for a worker, so the site's backlog figures (and the admission that reads
    them) leave them out: one student's second experiment must not make the heavy queue
    look old to everyone else."""
    if not settings.LAB_EXPERIMENT_TURNS:
        return Q(pk__in=[])
    running = Run.objects.filter(
        owner_id=OuterRef("owner_id"),
        lab__in=experiment_slugs(),
        status=Run.Status.RUNNING,
        lease_expires_at__gt=timezone.now(),
    ).exclude(pk=OuterRef("pk"))
    return Q(status=Run.Status.QUEUED, lab__in=experiment_slugs()) & Q(Exists(running))


def wait_for_turn(run: Run, send_again: Callable[[], object]) -> bool:
    """After `run` was claimed: give it back when its owner has another experiment running.

    True when it was given back: `send_again` has published its task anew (with a delay)
    and the run is queued again, its attempt not counted. The owner's row is locked while
    their experiments are counted, so of two of one student's experiments claimed at the
    same moment by two worker processes exactly one is given back (the same lock the caps
    take when runs are made). Quick runs never come here (one query for them: the claim).
    """
    if not settings.LAB_EXPERIMENT_TURNS:
        return False
    if run.owner_id is None or run.lab not in experiment_slugs():
        return False
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=run.owner_id).values_list("pk"))
        if not other_experiment_running(run.pk):
            return False
        # Published before the run is queued again, so the sweeper never finds it queued
        # with no message (labs.runs.lost); the message waits TURN_WAIT_S anyway.
        send_again()
        Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
            status=Run.Status.QUEUED,
            started_at=None,
            lease_expires_at=None,
            attempts=F("attempts") - 1,
        )
    return True
