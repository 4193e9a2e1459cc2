"""Kept dead-letter queues are bounded: a few per student, a few hundred in all.

Each finished experiment that parked messages keeps its DLQ in Redis for an hour, for the
queue panel. Without a bound a class could fill the Redis that is also Celery's broker.
So at most `LAB_KEPT_DLQ_PER_USER` are kept per student and `LAB_KEPT_DLQ_TOTAL` in all;
past either, the oldest are dropped first and their run records why (`Run.dlq_note`),
which the queue panel shows its owner instead of the queue. The newest run always keeps
its queue: it is the one the student is looking at.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import timedelta
from uuid import UUID

import redis
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from labs.runs.models import Run

logger = logging.getLogger(__name__)


# What `Run.dlq_note` holds: which cap dropped the queue (the words are made per reader).
PER_USER, TOTAL = "per_user", "total"


def note_for(code: str) -> str:
    """The owner's explanation of a dropped queue, in the reader's language."""
    return total_note() if code == TOTAL else per_user_note()


def per_user_note() -> str:
    return _(
        "This run's dead-letter queue was deleted to make room: each student keeps at most "
        "%(cap)d, and newer runs of yours kept theirs."
    ) % {"cap": settings.LAB_KEPT_DLQ_PER_USER}


def total_note() -> str:
    return _(
        "This run's dead-letter queue was deleted to make room: the site keeps at most "
        "%(cap)d for everyone together, and it dropped the oldest first."
    ) % {"cap": settings.LAB_KEPT_DLQ_TOTAL}


def _keeping_slugs() -> list[str]:
    from labs.catalogue.entries import LABS

    return [lab.slug for lab in LABS if lab.kind == "experiment" and lab.keeps_dlq]


def retained_runs(now=None) -> list[Run]:
    """Runs whose DLQ is (still) kept in Redis, oldest first."""
    from labs.runs import retained_queue

    now = now or timezone.now()
    since = now - timedelta(seconds=retained_queue.KEPT_DLQ_S)
    candidates = list(
        Run.objects.filter(
            lab__in=_keeping_slugs(),
            status=Run.Status.SUCCEEDED,
            finished_at__gte=since,
            dlq_note="",
        )
        .order_by("finished_at")
        .only("pk", "owner_id", "finished_at")
    )
    if not candidates:
        return []
    kept = retained_queue.retained_exist([run.pk for run in candidates])
    return [run for run, exists in zip(candidates, kept, strict=True) if exists]


# Runs whose hour ended this long ago at most are looked at by `drop_expired` on each
# sweep; one the sweeper missed (it was stopped longer) goes with its keys' TTL.
EXPIRED_LOOK_BACK_S = 600


def drop_expired(now=None) -> int:
    """Delete the retained DLQs whose hour is up. Their keys live longer than that (see
    `labs.experiments.namespace.KEPT_GUARD_S`), so a full Redis evicts other keys before
    a retained DLQ still in its hour; the panel already treats them as gone."""
    from labs.runs import retained_queue

    now = now or timezone.now()
    ended = now - timedelta(seconds=retained_queue.KEPT_DLQ_S)
    pks = list(
        Run.objects.filter(
            lab__in=_keeping_slugs(),
            status=Run.Status.SUCCEEDED,
            finished_at__lt=ended,
            finished_at__gte=ended - timedelta(seconds=EXPIRED_LOOK_BACK_S),
        ).values_list("pk", flat=True)
    )
    if not pks:
        return 0
    dropped = 0
    for pk, present in zip(pks, retained_queue.retained_exist(pks), strict=True):
        if present:
            retained_queue.clean_run_keys(pk)
            dropped += 1
    return dropped


def enforce_retained_caps(now=None) -> int:
    """Drop the retained DLQs whose hour is up, then the oldest past the per-student and the
    total cap; how many dropped."""
    from labs.runs import retained_queue

    try:
        expired = drop_expired(now)
        runs = retained_runs(now)
    except redis.RedisError as exc:
        logger.warning("could not count the retained queues: %s", exc)
        return 0
    drop: dict[UUID, str] = {}
    by_owner: dict[int, list[Run]] = defaultdict(list)
    for run in runs:
        by_owner[run.owner_id].append(run)
    for owned in by_owner.values():
        for run in owned[: max(0, len(owned) - settings.LAB_KEPT_DLQ_PER_USER)]:
            drop[run.pk] = PER_USER
    left = [run for run in runs if run.pk not in drop]
    for run in left[: max(0, len(left) - settings.LAB_KEPT_DLQ_TOTAL)]:
        drop[run.pk] = TOTAL
    for pk, code in drop.items():
        # The note first: a panel that opens meanwhile says why, rather than "expired".
        Run.objects.filter(pk=pk, dlq_note="").update(dlq_note=code, drain_until=None)
        try:
            retained_queue.clean_run_keys(pk)
        except redis.RedisError as exc:
            logger.warning("could not drop the retained queue of run %s: %s", pk, exc)
    return expired + len(drop)
