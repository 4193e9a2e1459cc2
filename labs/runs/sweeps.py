"""The sweeps: every queued or running run ends, and old runs do not pile up.

They run in a loop of their own (`manage.py sweep_runs --loop`, started by `./dev run` and
`./dev sweeper`), never inside a page view: a poll stays a read, and runs still end when
nobody is looking. Every step is a conditional UPDATE or DELETE, so two sweepers on two
machines, or a sweeper racing a worker, cannot end one run twice or end a live one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Exists, OuterRef, ProtectedError, RestrictedError
from django.utils import timezone

from labs.experiments.namespace import KEPT_DLQ_S
from labs.runs import failures, references
from labs.runs.admission import overdue_queued
from labs.runs.models import Run, StoredResult
from labs.runs.result_store import settle_followers
from labs.runs.stale import resend_stale

logger = logging.getLogger(__name__)


def expire_queued(now=None) -> int:
    """Fail runs nobody picked up in time; their followers end with them."""
    now = now or timezone.now()
    overdue = Run.objects.filter(overdue_queued(now))
    ids = list(overdue.values_list("pk", flat=True)[:1000])
    if not ids:
        return 0
    failed = Run.objects.filter(overdue_queued(now), pk__in=ids).update(
        status=Run.Status.FAILED, finished_at=now, **failures.failure("busy_or_down")
    )
    settle_followers(ids)
    return failed


def compact_finished() -> int:
    """Drop live samples left on finished runs (the result has what the page shows)."""
    return Run.objects.filter(status__in=Run.FINISHED, progress__isnull=False).update(progress=None)


def prunable(now=None) -> models.QuerySet:
    """Finished runs older than `LAB_PRUNE_AFTER_DAYS` that nobody named, handed in or
    holds on to, and that keep no live queue.

    What holds a run is asked of `labs.runs.references` (every key other apps declared: a
    submission's run and before run, their earlier versions, a draft analysis), each as a
    NOT EXISTS on that key's indexed column, so the cost follows the old runs, not the
    hand-ins. A run still keeping its DLQ or draining it is never old enough, but is
    excluded by name too, should `LAB_PRUNE_AFTER_DAYS` ever come near the hour.
    """
    now = now or timezone.now()
    before = now - timedelta(days=settings.LAB_PRUNE_AFTER_DAYS)
    runs = Run.objects.filter(status__in=Run.FINISHED, created_at__lt=before, name="")
    runs = runs.exclude(finished_at__gte=now - timedelta(seconds=KEPT_DLQ_S))
    runs = runs.exclude(drain_until__gt=now)
    for model, key in references.holders():
        runs = runs.filter(~Exists(model._default_manager.filter(**{key: OuterRef("pk")})))
    return runs


def prune(now=None, batch: int = 500) -> int:
    """Delete prunable runs, a batch at a time (a long delete would hold the table), then
    the stored results no run shows any more.

    A run that something unforeseen still holds (a key nobody declared, or a hand-in made
    between the query and the delete: RESTRICT, PROTECT or the database's own foreign
    key) is skipped, logged once, and the batch goes on without it: one such run must not
    stop every later prune, as it once did.
    """
    deleted, after = 0, None
    while True:
        # In primary-key order from where the last batch ended: each query starts past the
        # runs already deleted (dead rows until a vacuum) or held, so a prune of 100,000
        # runs reads the table once rather than once per batch.
        candidates = prunable(now).order_by("pk")
        if after is not None:
            candidates = candidates.filter(pk__gt=after)
        ids = list(candidates.values_list("pk", flat=True)[:batch])
        if not ids:
            break
        after = ids[-1]
        try:
            deleted += _delete(ids)
        except HELD:
            for pk in ids:
                try:
                    deleted += _delete([pk])
                except HELD as exc:
                    _report_held(pk, exc)
    drop_unused_results(now)
    return deleted


# What a delete of a run that something still holds raises.
HELD = (RestrictedError, ProtectedError, IntegrityError)
_reported: set[Any] = set()  # runs already logged as held, so each is logged once per process


def _delete(ids: list) -> int:
    with transaction.atomic():
        return Run.objects.filter(pk__in=ids).delete()[1].get(Run._meta.label, 0)


def _report_held(pk, exc: Exception) -> None:
    if pk in _reported:
        return
    if len(_reported) > 100_000:
        _reported.clear()
    _reported.add(pk)
    logger.warning("prune skipped run %s: something still holds it (%s)", pk, exc)


# A result is saved a moment before its run points at it: never one younger than this.
UNUSED_RESULT_AGE = timedelta(hours=1)


def drop_unused_results(now=None, batch: int = 5000) -> int:
    """Delete the stored results that no run shows any more (pruned or deleted runs).

    A run made this instant that points at an old one (PROTECT) keeps it: the delete then
    fails for that result alone, and it stays. At most `batch` an hour.
    """
    cutoff = (now or timezone.now()) - UNUSED_RESULT_AGE
    unused = StoredResult.objects.filter(runs__isnull=True, created_at__lt=cutoff)
    dropped = 0
    for pk in list(unused.values_list("pk", flat=True)[:batch]):
        try:
            with transaction.atomic():
                dropped += StoredResult.objects.filter(pk=pk, runs__isnull=True).delete()[0]
        except (IntegrityError, ProtectedError):
            continue
    return dropped


@dataclass
class SweepReport:
    expired: int = 0
    requeued: int = 0  # a dead worker's runs, sent again
    stale: int = 0  # a dead worker's runs that had their tries, failed
    resent: int = 0
    lost: int = 0
    orphaned: int = 0  # runs whose message only a dead worker took, sent again
    compacted: int = 0
    retained_dropped: int = 0
    drafts: int = 0
    pruned: int = 0

    def __str__(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.__dict__.items())


def sweep_once(*, prune_too: bool = False, now=None) -> SweepReport:
    """One pass of every sweep; the loop calls it every `LAB_SWEEP_EVERY_S`."""
    from labs.runs.drafts import prune_drafts
    from labs.runs.lost import resend_lost
    from labs.runs.orphans import resend_orphans
    from labs.runs.retained_caps import enforce_retained_caps

    report = SweepReport(expired=expire_queued(now), compacted=compact_finished())
    report.requeued, report.stale = resend_stale(now)
    report.resent, report.lost = resend_lost(now)
    report.orphaned = resend_orphans(now)
    report.retained_dropped = enforce_retained_caps(now=now)
    # Every pass, not hourly: a class dragging sliders makes drafts by the thousand.
    report.drafts = prune_drafts(now)
    if prune_too:
        report.pruned = prune(now)
    return report
