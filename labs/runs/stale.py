"""Runs whose worker vanished: sent again to another worker, or failed once they have had
their tries, so none stays "running" forever or waits on a dead worker's message.

A worker sets `lease_expires_at` when it claims a run and keeps renewing it while it works
(`labs.runs.lease`). A lease that ran out means the worker died (its main process, its
pool child, or both). Celery would hand the task out again by itself only when the main
process saw its child die; a killed main process leaves the message in the broker's
`unacked` hash until the visibility timeout (300 s). So the sweeper does not wait: every
few seconds (`labs.runs.sweeps`) it puts a run whose lease ran out back to "queued",
drops the dead worker's delivery of it from `unacked` and sends it again, within seconds
of `LAB_LEASE_S`. A run that has had its `MAX_ATTEMPTS` claims is failed instead
(`worker_gone`), so a run that kills every worker it meets cannot go round for ever.

Every step is a conditional UPDATE: of two sweepers, or a sweeper and a worker taking the
run over itself, one wins and the other does nothing; a second delivery that finds the
run taken is skipped (`Run.objects.claim`). No page view calls this: a poll only reads.
It sits above both the `Run` model and the retained queue, so neither needs the other.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.db.models import Q
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import failures, redis_clients
from labs.runs.models import Run
from labs.runs.result_store import settle_followers
from labs.runs.retained_queue import clean_run_keys

logger = logging.getLogger(__name__)

# Claims a run may have (`Run.objects.claim`'s own bound): the first and two more.
MAX_ATTEMPTS = 3


def stale_runs(now) -> Q:
    return Q(status=Run.Status.RUNNING, lease_expires_at__lt=now)


def resend_stale(now=None, batch: int = 1000) -> tuple[int, int]:
    """Send again the runs whose lease ran out, or fail those that had their tries; end
    the failed ones' followers with them and delete their experiments' Redis keys. At most
    `batch` runs a call (the sweep comes back). The sweeper's one way to end them.

    Returns (sent again, failed).
    """
    now = now or timezone.now()
    rows = list(Run.objects.filter(stale_runs(now)).values_list("pk", "lab", "attempts")[:batch])
    if not rows:
        return 0, 0
    again = [pk for pk, slug, tries in rows if tries < MAX_ATTEMPTS and get_lab(slug)]
    spent = [pk for pk, _slug, _tries in rows if pk not in set(again)]
    return _send_again(again, now), _fail(spent, now)


def _send_again(ids: list[Any], now) -> int:
    from labs.runs.dispatch import publish

    if not ids:
        return 0
    back = Run.objects.filter(stale_runs(now), pk__in=ids).update(
        status=Run.Status.QUEUED, lease_expires_at=None, resent_at=now
    )
    if not back:
        return 0
    runs = list(Run.objects.filter(pk__in=ids, status=Run.Status.QUEUED, resent_at=now))
    forget_deliveries({str(run.pk) for run in runs})
    clean_experiment_keys([run.pk for run in runs], also_queued=True)
    sent = 0
    for run in runs:
        lab = get_lab(run.lab)
        logger.warning("run %s: its worker's lease ran out; sending it again", run.pk)
        if lab is not None and publish(run, lab):
            sent += 1
    return sent


def _fail(ids: list[Any], now) -> int:
    if not ids:
        return 0
    failed = Run.objects.filter(stale_runs(now), pk__in=ids).update(
        status=Run.Status.FAILED, finished_at=now, **failures.failure("worker_gone")
    )
    clean_experiment_keys(ids)
    settle_followers(ids)
    return failed


def forget_deliveries(run_ids: set[str]) -> int:
    """Drop the dead workers' deliveries of `run_ids` from kombu's `unacked` hash (and its
    index), so none of them comes back after the visibility timeout as a duplicate, and
    the lost-message sweep (`labs.runs.lost`) does not take them for the run's message.
    A worker still alive that acknowledges one later finds it gone, which kombu allows."""
    if not run_ids:
        return 0
    r = redis_clients.sweeper_broker()
    wanted = [run_id.encode() for run_id in run_ids]
    tags = [
        tag for tag, raw in r.hscan_iter("unacked", count=1000) if any(w in raw for w in wanted)
    ]
    if not tags:
        return 0
    pipe = r.pipeline(transaction=False)
    pipe.hdel("unacked", *tags)
    pipe.zrem("unacked_index", *tags)
    pipe.execute()
    return len(tags)


def clean_experiment_keys(run_pks: list[Any], *, also_queued: bool = False) -> None:
    """Delete the keys of the runs just failed (or sent again) for a dead worker; those of
    simulations are none. Redis being down only leaves the keys to their TTL: it never
    fails a page."""
    ended = {Run.Status.FAILED, Run.Status.QUEUED} if also_queued else {Run.Status.FAILED}
    for run in Run.objects.filter(pk__in=run_pks).only("pk", "lab", "status"):
        lab = get_lab(run.lab)
        if lab is None or lab.kind != "experiment" or run.status not in ended:
            continue
        try:
            clean_run_keys(run.pk)
        except redis.RedisError:
            logger.warning("could not clean the keys of run %s; their TTL will", run.pk)
