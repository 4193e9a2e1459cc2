"""Whether a student may start more runs now: caps that hold under any concurrency.

Counting a student's active runs and then creating one is a race: twenty requests that
count at the same instant all see room. So the count and the create happen in one
transaction that first locks the student's own row (`SELECT ... FOR UPDATE` on the user
in PostgreSQL; in SQLite the site's `IMMEDIATE` transactions take the database's write
lock at BEGIN, which serialises them the same way). Two students never wait on each
other's lock; one student's requests take turns, each seeing the runs the previous one
made. Redrives count against the experiment cap while they drain (`Run.drain_until`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from labs.runs import failures, redis_clients, redis_memory, telemetry_store
from labs.runs.fair_share import Share, is_own
from labs.runs.models import Run


class CapReached(Exception):
    """The student has as many runs going as they may; `str()` says so in plain words."""


def lock_user(user) -> None:
    """Hold the student's row until the transaction ends (call inside `atomic`)."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))


def experiment_slugs() -> list[str]:
    from labs.catalogue.entries import LABS

    return [lab.slug for lab in LABS if lab.kind == "experiment"]


def active_experiments(user, *, now=None, exclude_pk: Any = None) -> int:
    """Experiments queued or running, plus finished ones whose retained queue is draining."""
    now = now or timezone.now()
    mine = Run.objects.filter(owner=user)
    if exclude_pk is not None:
        mine = mine.exclude(pk=exclude_pk)
    running = mine.active().filter(lab__in=experiment_slugs()).count()
    draining = mine.filter(drain_until__gt=now).exclude(
        status__in=[Run.Status.QUEUED, Run.Status.RUNNING]
    )
    return running + draining.count()


def check_caps(user, *, adding: int, experiments: int) -> None:
    """Raise CapReached unless `adding` more runs (`experiments` of them experiments) fit.

    Call with the student's row locked (`lock_user`), or the count can be stale.
    """
    cap = settings.LAB_MAX_ACTIVE_RUNS_PER_USER
    computing = Run.objects.filter(owner=user).active().count()
    if computing + adding > cap:
        if adding == 1:
            reason = ngettext(
                "You already have %(cap)d run going",
                "You already have %(cap)d runs going",
                cap,
            ) % {"cap": cap}
        else:
            reason = _(
                "This starts %(adding)d runs, and you may have at most %(cap)d going at once"
            ) % {"adding": adding, "cap": cap}
        raise CapReached(
            _("%(reason)s. Wait for one to finish, then press Run again.") % {"reason": reason}
        )
    if experiments:
        experiments_cap = settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER
        if active_experiments(user) + experiments > experiments_cap:
            raise CapReached(
                _(
                    "You already have %(cap)d real-queue experiments going (a redrive that is "
                    "still draining counts as one), the most one student may run at once on "
                    "the shared Redis. Wait for one to finish, then press Run again."
                )
                % {"cap": experiments_cap}
            )


def admit_oldest_s(queue: str) -> int | None:
    """The oldest waiting run's age past which `queue` refuses new runs (None: never by age).

    The quick queue's `LAB_ADMIT_OLDEST_S` (10 s) and the heavy queue's own
    `LAB_ADMIT_HEAVY_OLDEST_S` (120 s): the reasoning is beside each in settings.py and in
    docs/operations.md, "Admission by oldest age".
    """
    if queue == settings.LAB_QUEUE:
        return settings.LAB_ADMIT_OLDEST_S
    if queue == settings.LAB_HEAVY_QUEUE:
        return settings.LAB_ADMIT_HEAVY_OLDEST_S
    return None


def runners_refusal(queue: str, share: Share | None = None) -> str | None:
    """Why a new run for `queue` should not be queued now (in words), or None to admit it.

    Admission by the oldest waiting run's age, as Assignment 05 teaches: when the queue's
    oldest run has waited over its threshold (`admit_oldest_s`), or no worker is alive for
    the queue, a new run would only wait (and, past `LAB_QUEUE_TIMEOUT_S`, fail). Read from
    the sampler's snapshot (a second old at most), so a press costs one Redis GET. With no
    snapshot (no sampler running, e.g. a laptop without the sweeper) nothing is known of
    the queue and the run is admitted: the queue timeout still ends it. No worker alive
    while the broker's Redis refuses writes as full is said as a full Redis, not as
    runners that need starting (`broker_full`: the workers wait for room because of it).

    On a queue shared by lanes (`share`: the quick queue, `labs.runs.fair_share`) the age
    is judged twice: the front's (the oldest run sent at level 0, which every lane's next
    run waits behind) for the whole site, and the press's own lane's oldest run, which its
    new run would queue behind (counted at the press, so judged with no snapshot too). One
    class's flood is then refused to that class alone.
    """
    snap = telemetry_store.snapshot()
    figures = snap["queues"].get(queue) if snap else None
    if figures is None:
        return own_lane_refusal(queue, share)
    if not figures.get("workers"):
        if broker_full():
            # The workers wait because Redis is full: no teacher can start them.
            return failures.said("redis_full", {}, "")
        return _(
            "No lab runner is up for this kind of run, so it was not started: it would only "
            "wait. Tell your teacher that the lab runners need starting; runs already "
            "finished still open as usual."
        )
    oldest = figures.get("oldest_s") or 0
    if share is not None:
        # The front: the age the next run of a lane with nothing waiting would reach.
        oldest = figures.get("front_oldest_s", oldest) or 0
    threshold = admit_oldest_s(queue)
    if threshold is not None and oldest > threshold:
        wait_s = figures.get("drain_s") or oldest
        return _(
            "The lab runners are busy: a new run would wait about %(s)d s, so it was not "
            "started. Press Run again in a little while."
        ) % {"s": max(1, round(wait_s))}
    return own_lane_refusal(queue, share)


def broker_full() -> bool:
    """Whether the broker's Redis refuses writes as full (`labs.runs.redis_memory`)."""
    probe = telemetry_store.key("memory-probe")
    return redis_memory.refusal(redis_clients.broker(), probe) is not None


def own_lane_refusal(queue: str, share: Share | None) -> str | None:
    """Why a press whose own lane has runs waiting too long is refused, or None.

    Read from the database at the press (the lane's count and oldest run), so it holds with
    no sampler running too.
    """
    threshold = admit_oldest_s(queue)
    if share is None or threshold is None:
        return None
    waited_s = share.oldest_s()
    if waited_s <= threshold:
        return None
    values = {"n": share.waiting, "s": round(waited_s)}
    if is_own(share.lane):
        return (
            ngettext(
                "You already have %(n)d run waiting for a lab runner, for %(s)d s so far, so "
                "this one was not started: it would only wait behind it. Press Run again once "
                "it has finished.",
                "You already have %(n)d runs waiting for a lab runner, the oldest for %(s)d s, "
                "so this one was not started: it would only wait behind them. Press Run again "
                "once some have finished.",
                share.waiting,
            )
            % values
        )
    return (
        ngettext(
            "Your class already has %(n)d run waiting for a lab runner, for %(s)d s so far, so "
            "this one was not started: it would only wait behind it. Other classes' runs are "
            "still being answered: each class waits its own turn. Press Run again in a little "
            "while.",
            "Your class already has %(n)d runs waiting for a lab runner, the oldest for %(s)d s, "
            "so this one was not started: it would only wait behind them. Other classes' runs "
            "are still being answered: each class waits its own turn. Press Run again in a "
            "little while.",
            share.waiting,
        )
        % values
    )


def queue_for(lab, params: dict[str, Any]) -> str:
    """The Celery queue a run goes to: heavy work apart from the quick labs."""
    if lab.kind == "experiment":
        return settings.LAB_HEAVY_QUEUE
    cost = lab_cost(lab, params)
    if cost is not None and cost.seconds >= settings.LAB_HEAVY_FROM_S:
        return settings.LAB_HEAVY_QUEUE
    return settings.LAB_QUEUE


def lab_cost(lab, params: dict[str, Any]):
    """The lab's bound on this run's worker time (`labs.sim.capstone.cost.Cost`), or None."""
    estimate = getattr(lab, "cost", None)
    return estimate(params) if estimate else None


def over_budget(lab, params: dict[str, Any]) -> tuple[str, Sequence[str]] | None:
    """(a plain-words reason, the fields to change) when a run would cost over the budget.

    A simulation is held to `LAB_RUN_BUDGET_S` of a worker's CPU, a real-queue experiment
    to `LAB_EXPERIMENT_BUDGET_S` of a heavy worker's wall time.
    """
    cost = lab_cost(lab, params)
    experiment = lab.kind == "experiment"
    budget = settings.LAB_EXPERIMENT_BUDGET_S if experiment else settings.LAB_RUN_BUDGET_S
    if cost is None or cost.seconds <= budget:
        return None
    need = f"{cost.seconds:,.0f}"
    if experiment:
        message = _(
            "This experiment would hold one of the shared workers for about %(need)s s of "
            "real time, and one experiment may take at most %(budget)d s, so that the whole "
            "class gets its turn. Make it shorter: lower one of the fields marked."
        ) % {"need": need, "budget": budget}
    else:
        message = _(
            "This run could take up to %(need)s s of a worker's time, and one run may use at "
            "most %(budget)d s, so that the whole class gets its turn. Make it smaller: lower "
            "one of the fields marked."
        ) % {"need": need, "budget": budget}
    return message, cost.drivers


def overdue_queued(now=None) -> models.Q:
    """Runs no worker has picked up within `LAB_QUEUE_TIMEOUT_S`."""
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.LAB_QUEUE_TIMEOUT_S)
    return models.Q(status=Run.Status.QUEUED, created_at__lt=limit)


def drain_cap_message() -> str:
    return _(
        "You already have %(cap)d real-queue experiments or redrives going, the most one "
        "student may run at once on the shared Redis. Wait for one to finish, then redrive."
    ) % {"cap": settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER}
