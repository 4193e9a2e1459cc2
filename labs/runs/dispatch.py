"""Handing a saved run to the workers, and telling the user when that cannot happen."""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from celery import Task
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from labs.catalogue.lab import Lab
from labs.runs import (
    admission,
    failures,
    fair_share,
    redis_clients,
    result_store,
    retained_queue,
    succeeded,
    turns,
)
from labs.runs.draining import hold_drain
from labs.runs.models import Run
from labs.runs.tasks import drain_retained_queue, execute_run, hard_limit_for

logger = logging.getLogger(__name__)


class RunnerOffline(Exception):
    """The broker cannot be reached: a run would wait forever, so none is made."""


class RunRefused(Exception):
    """No run was made, for a reason the user can act on; `status` is the HTTP answer."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def check_broker(timeout_s: float = 1.0) -> None:
    """Raise RunnerOffline unless Redis answers a PING within `timeout_s`."""
    try:
        redis_clients.broker(timeout_s).ping()
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        logger.warning("the broker at %s does not answer: %s", broker_address(), exc)
        raise RunnerOffline(failures.said("offline", {}, "")) from exc


def broker_address() -> str:
    """The broker's host, port and database, for a message: never its password."""
    return settings.CELERY_BROKER_URL.split("@")[-1]


def start_run(user, lab: Lab, params: dict[str, Any], seed: int) -> Run:
    """Save a queued run of `lab` for `user` and send it to the workers, or refuse.

    The one way a run is started from the web (the lab page, an assignment, a re-run),
    so the per-user cap and the broker check hold everywhere.
    """
    return start_runs(user, lab, [(params, seed)])[0]


def start_runs(
    user,
    lab: Lab,
    runs: list[tuple[dict[str, Any], int]],
    *,
    draft: bool = False,
    under_lock: Callable[[], object] | None = None,
) -> list[Run]:
    """Start several runs of `lab` together (e.g. a before/after pair): all of them or none.

    In order: the cost budget, the broker, then, with the student's row locked, the caps
    and the runs themselves (see `labs.runs.admission`). A run the result store already
    has is saved finished at once; one identical to a run in progress waits on it. A run
    for the quick queue takes its place in its class's share (`labs.runs.fair_share`).
    `draft` marks them drafts (`labs.runs.drafts`: started by moving a control);
    `under_lock` is done first once the row is locked, in the same transaction, so a
    refusal undoes it too (a draft deletes its student's older drafts still waiting).
    """
    refuse_over_budget(lab, runs)
    refuse_when_offline()
    keys = [result_store.result_key(lab, params, seed) for params, seed in runs]
    share: fair_share.Share | None = None
    try:
        with transaction.atomic():
            admission.lock_user(user)
            if under_lock is not None:
                under_lock()
            known = look_up(keys)
            params_of_runs = [params for params, _seed in runs]
            share = share_of(user, lab, params_of_runs, keys, known)
            refuse_without_runners(lab, params_of_runs, keys, known, share)
            computing = sum(known.stored[key] is None for key in keys)
            refuse_over_caps(user, lab, computing=computing)
            made = []
            for (params, seed), key in zip(runs, keys, strict=True):
                run = _make(
                    user, lab, params, seed, key, known.stored[key], known.twins.get(key),
                    draft, share,
                )  # fmt: skip
                if key and known.needs_a_worker(key) and not draft:
                    # The same run twice in one call (a pair's two halves alike): the
                    # second waits on the first, which computes. A queued draft leads nobody.
                    known.twins[key] = run
                made.append(run)
            return made
    finally:
        if share is not None:
            share.done()  # its runs are saved (or none was): counted as waiting from now


def refuse_over_budget(lab: Lab, runs: list[tuple[dict[str, Any], int]]) -> None:
    """Refuse (422) a run whose cost is over the lab's budget."""
    for params, _seed in runs:
        over = admission.over_budget(lab, params)
        if over is not None:
            raise RunRefused(over[0], 422)


def refuse_when_offline() -> None:
    """Refuse (503) when the broker does not answer: a run would wait forever."""
    try:
        check_broker()
    except RunnerOffline as exc:
        raise RunRefused(str(exc), 503) from exc


@dataclass
class Known:
    """What the result store has for each key: a stored result, or a run computing it."""

    stored: dict[str, Run | None]
    twins: dict[str, Run | None]

    def needs_a_worker(self, key: str) -> bool:
        return self.stored[key] is None and self.twins.get(key) is None


def look_up(keys: list[str]) -> Known:
    """Each key's stored result or running twin, electing (under the key's lock) the one
    run that computes a key nobody has computed or is computing.

    A run that copies a stored result or waits on a running twin needs no turn (a leader
    that ends meanwhile settles it on commit), so a class pressing Run together does not
    queue up behind one lock.
    """
    stored: dict[str, Run | None] = {}
    twins: dict[str, Run | None] = {}
    for key in set(keys):
        stored[key], twins[key] = result_store.stored_or_twin(key)
    electing = sorted(k for k in stored if k and not stored[k] and not twins[k])
    for key in electing:  # in one order, so two requests cannot deadlock
        result_store.lock_key(key)
        # Another press may have elected its leader while this one waited.
        stored[key], twins[key] = result_store.stored_or_twin(key)
    return Known(stored, twins)


def queues_needed(
    lab: Lab, params_of_runs: list[dict[str, Any]], keys: list[str], known: Known
) -> set[str]:
    """The queues of the runs that will take a worker (not stored, not following a twin)."""
    return {
        admission.queue_for(lab, params)
        for params, key in zip(params_of_runs, keys, strict=True)
        if known.needs_a_worker(key)
    }


def share_of(
    user, lab: Lab, params_of_runs: list[dict[str, Any]], keys: list[str], known: Known
) -> fair_share.Share:
    """The user's share of the quick queue when a run will take a quick worker (their
    lane's backlog counted); their lane alone when one takes a heavy worker (nothing there
    to share); no lane when none takes a worker (answered from the store, or following an
    identical run): such a run is never counted in a lane's backlog, so its lane is not
    looked up (a query a store-answered draft made for nothing)."""
    needed = queues_needed(lab, params_of_runs, keys, known)
    if settings.LAB_QUEUE in needed:
        return fair_share.share_for(user, settings.LAB_QUEUE)
    return fair_share.Share(fair_share.lane_of(user) if needed else "")


def refuse_without_runners(
    lab: Lab,
    params_of_runs: list[dict[str, Any]],
    keys: list[str],
    known: Known,
    share: fair_share.Share | None = None,
) -> None:
    """Refuse (503) when a queue that a run needs has no runners to take it, or when its
    runs there would only wait (`admission.runners_refusal`, judged per lane on the quick
    queue by `share`).

    Only a run that needs a worker can be refused for the workers: a stored result is
    answered, and a run waiting on a twin follows it, however busy they are.
    """
    for queue in sorted(queues_needed(lab, params_of_runs, keys, known)):
        refusal = admission.runners_refusal(queue, share if share and share.fair else None)
        if refusal is not None:
            raise RunRefused(refusal, 503)


def refuse_over_caps(user, lab: Lab, *, computing: int) -> None:
    """Refuse (429) when `computing` more runs would take `user` past their caps.

    With none (every run answered from the store) nothing is added, so nothing is counted.
    """
    if not computing:
        return
    try:
        admission.check_caps(
            user, adding=computing, experiments=computing if lab.kind == "experiment" else 0
        )
    except admission.CapReached as exc:
        raise RunRefused(str(exc), 429) from exc


def _make(
    user,
    lab: Lab,
    params,
    seed: int,
    key: str,
    stored: Run | None,
    twin: Run | None,
    draft: bool,
    share: fair_share.Share | None = None,
) -> Run:
    """One run: answered from the store, waiting on an identical run, or sent to a worker
    (on the quick queue, at its place in its lane's `share`; none: the first)."""
    share = share or fair_share.Share(fair_share.lane_of(user))
    fields = {
        "owner": user,
        "lab": lab.slug,
        "params": params,
        "seed": seed,
        "result_key": key,
        "draft": draft,
        "address": turns.current_address(),  # experiments take turns by it (labs.runs.turns)
        "lane": share.lane,
    }
    if stored is not None:
        return _answered_from_store(fields, stored)
    queue = admission.queue_for(lab, params)
    priority = share.take() if twin is None and fair_share.shares(queue) else 0
    run = Run.objects.create(**fields, same_as=twin, queue=queue, priority=priority)
    if twin is None:
        enqueue(run, lab)
    else:
        follow(twin)
    return run


def _answered_from_store(fields: dict[str, Any], stored: Run) -> Run:
    """A run saved finished at once, pointing at the stored result (not a copy of it)."""
    now = timezone.now()
    run = Run.objects.create(
        **fields,
        status=Run.Status.SUCCEEDED,
        **stored.result_fields(),
        same_as=stored,
        started_at=now,
        finished_at=now,
    )
    if Run.stored_result.is_cached(stored):
        run.stored_result = stored.stored_result  # read with the look-up: not asked again
    # Told as it is held, its result loaded: the challenges judge it without reading it back.
    transaction.on_commit(lambda: succeeded.tell([run]))
    return run


def follow(leader: Run) -> None:
    """A run waits on `leader`; the leader may end between the look-up and this commit, so
    its followers are settled then, if so."""
    transaction.on_commit(lambda: result_store.settle_followers([leader.pk]))


def enqueue(run: Run, lab: Lab) -> None:
    """Send the run to a worker once its row is committed (so the worker can read it).

    If the broker refuses the message, the run is marked failed with the reason, so
    the user never waits on a run that no worker will ever see.
    """
    transaction.on_commit(lambda: publish(run, lab))


class ChannelLost(Exception):
    """kombu sent on a channel it had closed itself, twice over (see `send`)."""


# What a publish raises when the broker cannot take the message.
BROKER_ERRORS = (OperationalError, redis.RedisError, OSError, ChannelLost)


def send(task: Task, **options: Any) -> None:
    """`task.apply_async(**options)`, once more on a connection of its own if kombu sent on
    a channel it had closed.

    When Redis refuses writes (full), declaring the queue can fail in a way kombu recovers
    from by closing the pooled connection's channel and declaring on a new one, while the
    message then goes to the channel taken before, now without a connection:
    `AttributeError: 'NoneType' object has no attribute 'client'`, a 500 on Run (the fault
    bench's finding 4). It is raised before anything is written, so sending once more
    cannot make a second message. Raised again, it is `ChannelLost`, a broker failure.
    """
    try:
        task.apply_async(**options)
        return
    except AttributeError as exc:
        if not raised_in_kombu(exc):
            raise
        logger.warning("kombu sent on a closed channel (%s): once more on a new connection", exc)
    try:
        with task.app.connection_for_write() as connection:
            task.apply_async(**{**options, "connection": connection})  # Celery's own option
    except AttributeError as exc:
        if not raised_in_kombu(exc):
            raise
        raise ChannelLost(str(exc)) from exc


def raised_in_kombu(exc: BaseException) -> bool:
    """Whether `exc` was raised by kombu's own code (not by ours, nor Celery's)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and f"{os.sep}kombu{os.sep}" in frames[-1].filename


def publish(run: Run, lab: Lab) -> bool:
    """Send `run`'s task to its queue now, at its priority (`labs.runs.fair_share`); if the
    broker refuses, fail the run saying so."""
    limit_s = lab.time_limit_for(run.params)
    try:
        send(
            execute_run,
            args=(str(run.pk),),
            queue=run.queue or settings.LAB_QUEUE,
            priority=run.priority,
            soft_time_limit=limit_s,
            time_limit=hard_limit_for(limit_s),
        )
    except BROKER_ERRORS as exc:
        logger.warning("could not enqueue run %s at %s: %s", run.pk, broker_address(), exc)
        # Redis at maxmemory refuses writes: say so, not "offline". redis-py words it
        # "command not allowed when used memory > 'maxmemory'" (without the reply's "OOM"),
        # and kombu passes that text on inside its OperationalError. A channel lost twice
        # says nothing of why: Redis is asked (a full one is why, as a rule).
        full = isinstance(exc, redis.exceptions.OutOfMemoryError) or "maxmemory" in str(exc)
        full = full or (isinstance(exc, ChannelLost) and admission.broker_full())
        code = "redis_full" if full else "offline"
        Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
            status=Run.Status.FAILED,
            finished_at=timezone.now(),
            **failures.failure(code),
        )
        return False
    return True


def admit_drain(run: Run) -> None:
    """Count the drain a redrive is about to start against the owner's experiment cap.

    Raises `admission.CapReached` when the owner already has as many experiments (and
    drains) going as they may; else marks the run draining (`drain_until`), which the
    drain tasks renew while they go on and clear when the queue is empty.
    """
    with transaction.atomic():
        admission.lock_user(run.owner)
        now = timezone.now()
        fresh = Run.objects.filter(pk=run.pk).values_list("drain_until", flat=True).first()
        already_draining = fresh is not None and fresh > now
        others = admission.active_experiments(run.owner, now=now, exclude_pk=run.pk)
        if not already_draining and others + 1 > settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER:
            raise admission.CapReached(admission.drain_cap_message())
        hold_drain(run.pk)


def start_drain(run: Run) -> bool:
    """Start draining `run`'s retained queue after a redrive; False if a drain is already going.

    The running drain then finds the new work itself (it looks again after it lets go).
    Raises `retained_queue.QueueGone` once the retained queue has expired.
    """
    token = retained_queue.claim_drain(run.pk)
    if token is None:
        return False

    def publish() -> None:
        try:
            send(drain_retained_queue, args=(str(run.pk), token), queue=settings.LAB_HEAVY_QUEUE)
        except BROKER_ERRORS as exc:
            logger.warning("could not enqueue the drain of run %s: %s", run.pk, exc)
            retained_queue.release_drain(run.pk, token)

    transaction.on_commit(publish)
    return True
