"""A finished experiment's dead-letter queue, kept for an hour so a student can work on it.

When an experiment ends, all its own keys are deleted; its DLQ is first copied into a
namespace of its own (`labs.experiments.namespace.kept_namespace`) that ends `KEPT_DLQ_S`
after the run, whatever is done to it meanwhile. This module is the queue panel's side of
that queue: read it, redrive one message or all of them, purge, and drain what was
redriven with "the fixed consumer" (a worker that now succeeds) for a few seconds.

Redrive all and the drain run in a Celery task (`labs.runs.tasks.drain_retained_queue`), never in a
web request: the redrive goes through the token bucket of `redrive_all`, at most
`REDRIVE_RATE_PER_S` messages a second. One drain per run at a time, held by a lock key
with a token; a request that finds the lock taken leaves its message for the running
drain, which looks again after it lets the lock go.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from typing import Any

import redis
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from labs.experiments.dlq import kept_time_left_s, open_kept, redrive_all
from labs.experiments.metrics import queue_panel
from labs.experiments.namespace import KEPT_DLQ_S, Namespace, kept_id, run_key_for
from labs.experiments.queue import RedisQueue
from labs.experiments.workers import WorkerPool
from labs.runs import redis_clients

logger = logging.getLogger(__name__)

DLQ_SHOWN = 50  # rows of the DLQ list on the panel
REDRIVE_RATE_PER_S = 10.0
DRAIN_WORKERS = 2
DRAIN_RATE_PER_WORKER = 10.0  # jobs/s: slow enough to watch the panel drain
DRAIN_CAPACITY_PER_S = DRAIN_WORKERS * DRAIN_RATE_PER_WORKER
DRAIN_MAX_S = 20.0  # one task; a longer job is handed to the next task
# The fixed consumer's own timeout, not the experiment's (a fraction of a second there):
# a paced drain worker must not lose its message to another before it acknowledges it.
DRAIN_VISIBILITY_S = 30.0
LOCK_S = 30.0  # > DRAIN_MAX_S: a killed drain frees the queue within this
REDRIVE_ALL_FLAG_S = 60.0


def gone_text() -> str:
    """Why a finished run has no queue to show, in the reader's language."""
    hours = KEPT_DLQ_S / 3600
    return ngettext(
        "This run's queue is gone: a run's dead-letter queue is kept for %(hours)s hour "
        "after the run ends, then deleted.",
        "This run's queue is gone: a run's dead-letter queue is kept for %(hours)s hours "
        "after the run ends, then deleted.",
        math.ceil(hours),
    ) % {"hours": f"{hours:g}"}


def gone_early_text(evicted: bool) -> str:
    """Why a retained queue is gone before its hour was up, in the reader's language: Redis,
    full, evicted it (`maxmemory-policy volatile-ttl` drops the keys nearest their end
    first), or lost it in a restart or a flush. Never "kept for an hour": it was not."""
    if evicted:
        return _(
            "This run's dead-letter queue is gone before its hour was up: the Redis server "
            "ran out of memory and removed it to make room. Run the experiment again to get "
            "a new one."
        )
    return _(
        "This run's dead-letter queue is gone before its hour was up: the Redis server "
        "lost it (it was restarted or emptied). Run the experiment again to get a new one."
    )


def gone_reason(finished_at, gone: QueueGone, now=None) -> str:
    """What to tell a reader whose run's retained queue is gone (`gone`, just raised).

    A reason given with it stands. Otherwise, within the hour after the run ended the
    queue should still be there: it was evicted by a full Redis if Redis says it has
    evicted keys since it started (`INFO stats`), else lost in a restart or flush.
    """
    if gone.message is not None or finished_at is None:
        return str(gone)
    now = now or timezone.now()
    if (now - finished_at).total_seconds() >= KEPT_DLQ_S:
        return str(gone)
    try:
        evicted = int(client().info("stats").get("evicted_keys", 0)) > 0
    except redis.RedisError:
        evicted = False
    return gone_early_text(evicted)


UNRELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class QueueGone(Exception):
    """The retained queue has expired (or was never kept); `str()` says so for the page.

    Without a message of its own it says the queue expired, in the language of whoever
    reads it then (the page), not of whoever raised it.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message if self.message is not None else gone_text()


def client() -> redis.Redis:
    """The panel's client: one connection pool per process (thread-safe)."""
    return redis_clients.experiments("qlab-panel", settings.EXPERIMENT_REDIS_URL)


def _queue(run_pk: Any, *, visibility_timeout_s: float | None = None) -> RedisQueue:
    queue = open_kept(
        client(), kept_id(run_key_for(run_pk)), visibility_timeout_s=visibility_timeout_s
    )
    if queue is None:
        raise QueueGone()
    return queue


def _lock_key(queue: RedisQueue) -> str:
    return queue.ns.key("drain")


def _all_flag(queue: RedisQueue) -> str:
    return queue.ns.key("redrive-all")


def snapshot(run_pk: Any) -> dict[str, Any]:
    """What the panel shows: depth, in flight, oldest age, drain estimate, the DLQ, and
    whether a redrive or drain is going on. Raises QueueGone once the queue has expired."""
    queue = _queue(run_pk)
    shown = queue_panel(queue, dlq_limit=DLQ_SHOWN, capacity_per_s=DRAIN_CAPACITY_PER_S)
    r = client()
    busy = bool(r.exists(_lock_key(queue), _all_flag(queue)))
    return shown | {
        "busy": busy,
        "expires_in_min": max(1, round(time_left_s(run_pk, queue) / 60)),
        "dlq_more": max(0, shown["dlq_depth"] - len(shown["dlq"])),
    }


def time_left_s(run_pk: Any, queue: RedisQueue) -> float:
    """Seconds the run's retained queue has left of its promised hour (not its keys' TTL,
    which is longer: `labs.experiments.namespace.KEPT_GUARD_S`)."""
    left = kept_time_left_s(client(), kept_id(run_key_for(run_pk)))
    return queue.ns.ttl_s if left is None else left


def redrive_one(run_pk: Any, msg_id: str) -> bool:
    """Move one parked message back to the queue; False if it was not parked (any more)."""
    return _queue(run_pk).redrive(msg_id)


def ask_redrive_all(run_pk: Any, count: int | None = None) -> int:
    """Ask the drain task to move the DLQ (`count` messages, default all of them now) at the
    bounded rate; returns how many it will move."""
    queue = _queue(run_pk)
    count = queue.dlq_depth() if count is None else count
    ttl_ms = min(queue.ns.ttl_ms, int(REDRIVE_ALL_FLAG_S * 1000))
    client().set(_all_flag(queue), count, px=ttl_ms)
    return count


def purge(run_pk: Any, what: str) -> int:
    """Delete every message of the queue ("queue") or of the DLQ ("dlq"); returns how many."""
    queue = _queue(run_pk)
    if what == "dlq":
        client().delete(_all_flag(queue))
        return queue.purge_dlq()
    if what == "queue":
        return queue.purge()
    raise ValueError(f"what must be 'queue' or 'dlq', got {what!r}")


def claim_drain(run_pk: Any) -> str | None:
    """Take the run's drain lock; the token to hand to the task, or None if a drain holds it."""
    queue = _queue(run_pk)
    token = secrets.token_hex(8)
    ttl_ms = min(queue.ns.ttl_ms, int(LOCK_S * 1000))
    return token if client().set(_lock_key(queue), token, nx=True, px=ttl_ms) else None


def release_drain(run_pk: Any, token: str) -> None:
    """Let the lock go, if it is still this token's."""
    queue = open_kept(client(), kept_id(run_key_for(run_pk)))
    if queue is not None:
        client().eval(UNRELEASE, 1, _lock_key(queue), token)


def drain(run_pk: Any, token: str, *, max_s: float = DRAIN_MAX_S) -> bool:
    """Redrive (if asked) and drain the retained queue for at most `max_s`; the task's body.

    Returns True if work is left (a backlog, or a redrive still asked for) once the lock
    is let go, so the caller starts another drain.
    """
    r = client()
    try:
        queue = _queue(run_pk, visibility_timeout_s=DRAIN_VISIBILITY_S)
    except QueueGone:
        return False
    if r.get(_lock_key(queue)) != token.encode():
        return False  # not ours (any more): a newer drain holds it
    deadline = time.monotonic() + min(max_s, queue.ns.ttl_s - 1)

    def out_of_time() -> bool:
        return time.monotonic() >= deadline

    pool = WorkerPool(
        queue,
        workers=DRAIN_WORKERS,
        rate_per_worker=DRAIN_RATE_PER_WORKER,
        url=settings.EXPERIMENT_REDIS_URL,
        name="drain",
    )
    with pool:
        while not out_of_time():
            asked = r.getdel(_all_flag(queue))
            if asked is not None:
                count = int(asked)
                report = redrive_all(
                    queue, REDRIVE_RATE_PER_S, limit=count, should_stop=out_of_time
                )
                if report.moved < count and report.stopped and queue.dlq_depth():
                    # Out of time: the next drain moves the rest.
                    ask_redrive_all(run_pk, count - report.moved)
            if queue.stats().backlog == 0 and not r.exists(_all_flag(queue)):
                break
            time.sleep(0.05)
    release_drain(run_pk, token)
    try:
        queue = _queue(run_pk)
    except QueueGone:
        return False
    return queue.stats().backlog > 0 or bool(r.exists(_all_flag(queue)))


def clean_run_keys(run_pk: Any) -> int:
    """Delete every key of a run: its experiment's and its retained queue's. Returns how many."""
    run_key = run_key_for(run_pk)
    r = client()
    return Namespace(run_key).cleanup(r) + Namespace(kept_id(run_key)).cleanup(r)


def retained_exist(run_pks: list[Any]) -> list[bool]:
    """For each run, whether its retained DLQ is still there (one round trip for them all)."""
    pipe = client().pipeline(transaction=False)
    for pk in run_pks:
        pipe.exists(Namespace(kept_id(run_key_for(pk))).key("kept"))
    return [bool(n) for n in pipe.execute()]
