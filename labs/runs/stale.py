"""Runs whose worker vanished: failed, so none stays "running" forever, and their keys deleted.

A worker sets `lease_expires_at` when it claims a run and keeps renewing it while it works
(`labs.runs.lease`). A lease that ran out means the worker died. The sweeper calls
`fail_stale` every few seconds (`labs.runs.sweeps`); no page view does, so a poll only
reads. It sits above both the `Run` model and the kept queue, so neither needs the other.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.db.models import Q
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import failures
from labs.runs.kept_queue import clean_run_keys
from labs.runs.models import Run
from labs.runs.result_store import settle_followers

logger = logging.getLogger(__name__)


def fail_stale(now=None, batch: int = 1000) -> int:
    """Mark runs whose lease ran out as failed, end their followers with them, and delete
    their experiments' Redis keys; at most `batch` runs a call (the sweep comes back).

    Returns how many runs this call failed (a sweeper racing it may have failed some).
    """
    now = now or timezone.now()
    stale = Q(status=Run.Status.RUNNING, lease_expires_at__lt=now)
    ids = list(Run.objects.filter(stale).values_list("pk", flat=True)[:batch])
    if not ids:
        return 0
    failed = Run.objects.filter(stale, pk__in=ids).update(
        status=Run.Status.FAILED, finished_at=now, **failures.failure("worker_gone")
    )
    clean_experiment_keys(ids)
    settle_followers(ids)
    return failed


def clean_experiment_keys(run_pks: list[Any]) -> None:
    """Delete the keys of the runs just failed for a dead worker; those of simulations are
    none. Redis being down only leaves the keys to their TTL: it never fails a page."""
    for run in Run.objects.filter(pk__in=run_pks).only("pk", "lab", "status"):
        lab = get_lab(run.lab)
        if lab is None or lab.kind != "experiment" or run.status != Run.Status.FAILED:
            continue
        try:
            clean_run_keys(run.pk)
        except redis.RedisError:
            logger.warning("could not clean the keys of run %s; their TTL will", run.pk)
