"""Queued runs whose message a dead worker took: sent again within seconds, not 300 s later.

A worker takes a message before one of its pool processes claims the run (acks late: a
message per process, and those waiting out a countdown). A worker killed in between
leaves the run "queued", with no lease for the stale sweep (`labs.runs.stale`), and its
message in kombu's `unacked` hash, which the lost-message sweep counts as delivered
(`labs.runs.lost`). kombu hands such a message out again only after the visibility
timeout (`CELERY_VISIBILITY_TIMEOUT_S`, 300 s), by which time the queue timeout has failed
the run: "No runner picked this run up in time" (the fault bench's finding 3).

kombu notes when each message was taken (`unacked_index`, on the taker's clock), and each
live worker's beats say when it started and which deliveries it holds
(`telemetry_store.live_workers`, on its own clock). A live worker cannot hold a message
taken before it started, nor one missing from the list it gave well after the take. So a
queued run whose every delivery in `unacked` is held by none of the live workers of its
queue is sent again, and those deliveries are dropped, so that none comes back after the
visibility timeout.

Why it holds with any number of workers on any number of machines:

- the worker that took a message compares with its own clock only (its start, its list,
  the take's time): while it lives, it keeps the run from being sent again, however far
  apart the machines' clocks are; a skewed clock can only delay a send;
- a live worker whose beats say nothing (an older version; its list evicted or not
  readable) is counted as holding everything taken after it started;
- with no live worker on the queue nothing is sent (nobody would take it); once one
  starts, the next pass sends the run;
- right before a send, each dead delivery is looked for again: one acknowledged meanwhile
  (its run handed back with a fresh message), or handed back and taken again, is not
  taken for dead;
- a run sent twice all the same runs once: the claim is a conditional UPDATE
  (`Run.objects.claim`), so a second delivery finds the run taken and leaves it, and a
  result is never saved twice; of two sweepers, the one whose conditional UPDATE of
  `resent_at` counts 1 sends it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import redis
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import redis_clients, telemetry_store
from labs.runs.lost import deliveries, ids_in_lists, waiting_long_enough
from labs.runs.models import Run
from labs.runs.telemetry_store import LiveWorker

logger = logging.getLogger(__name__)

# A worker's list of what it holds is trusted for takes at least this much older than the
# list (both on its clock): kombu notes a take's time a round trip to Redis before the
# worker counts the message as held.
SAID_AFTER_S = 2.0


def cannot_hold(worker: LiveWorker, tag: str, taken_at: float) -> bool:
    """Whether `worker` cannot be holding the delivery `tag`, taken at `taken_at`."""
    if worker.started is not None and worker.started > taken_at:
        return True  # it started after the take
    said_after = worker.holds_at is not None and worker.holds_at > taken_at + SAID_AFTER_S
    return said_after and tag not in worker.holds


def held_by_none(tag: str, taken_at: float | None, workers: Sequence[LiveWorker]) -> bool:
    """Whether none of the live `workers` can be holding the delivery `tag` (taken at
    `taken_at`). With no live worker, or no time for the take, nothing is known: False."""
    if taken_at is None or not workers:
        return False
    return all(cannot_hold(worker, tag, taken_at) for worker in workers)


def times_taken(tags: list[str]) -> list[float | None]:
    """When kombu noted each delivery as taken (`unacked_index`; None: not noted)."""
    pipe = redis_clients.sweeper_broker().pipeline(transaction=False)
    for tag in tags:
        pipe.zscore("unacked_index", tag)
    return [None if at is None else float(at) for at in pipe.execute()]


def still_taken(tags: list[str], times: list[float | None]) -> bool:
    """Whether each delivery is still the one taken at the time read before (not
    acknowledged since, nor handed back and taken again under its tag)."""
    return times_taken(tags) == times


def resend_orphans(now=None, batch: int = 200) -> int:
    """Send again the queued runs whose message only a dead worker took; how many were."""
    from labs.runs.dispatch import publish

    now = now or timezone.now()
    runs = list(
        Run.objects.filter(waiting_long_enough(now)).only(
            "pk", "lab", "params", "queue", "priority", "resent_at"
        )[:batch]
    )
    if not runs:
        return 0
    queues = {run.queue for run in runs}
    try:
        # The lists first: a message taken between the two reads is then seen in
        # `unacked`, as taken just now (which its live taker rules out), not missed.
        waiting = ids_in_lists(queues)
        taken = deliveries()
        workers = {queue: telemetry_store.live_workers(queue) for queue in queues}
    except redis.RedisError as exc:
        logger.warning("could not look for runs a dead worker took: %s", exc)
        return 0
    resent = 0
    for run in runs:
        run_id = str(run.pk)
        tags = taken.get(run_id)
        if not tags or run_id in waiting:
            continue  # not taken, or waiting in its list too (a live worker will take it)
        try:
            times = times_taken(tags)
            if not all(
                held_by_none(tag, at, workers[run.queue])
                for tag, at in zip(tags, times, strict=True)
            ) or not still_taken(tags, times):
                continue
        except redis.RedisError:
            continue
        still = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED)
        if run.resent_at is None:
            still = still.filter(resent_at__isnull=True)
        else:
            still = still.filter(resent_at=run.resent_at)
        lab = get_lab(run.lab)
        if lab is None or not still.update(resent_at=now):
            continue  # another sweeper sent it, or a worker claimed it meanwhile
        logger.warning("run %s: the worker that took its message is gone; sending it again", run_id)
        resent += publish(run, lab)
        drop(tags)
    return resent


def drop(tags: list[str]) -> None:
    """Drop dead workers' deliveries from `unacked` (and its index), so none comes back
    after the visibility timeout; a worker acknowledging one later finds it gone, which
    kombu allows."""
    try:
        pipe = redis_clients.sweeper_broker().pipeline(transaction=False)
        pipe.hdel("unacked", *tags)
        pipe.zrem("unacked_index", *tags)
        pipe.execute()
    except redis.RedisError as exc:
        # Left there, it comes back after the visibility timeout and finds the run taken.
        logger.warning("could not drop %d dead deliveries: %s", len(tags), exc)
