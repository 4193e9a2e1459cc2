"""Queued runs whose message is gone from the broker: sent again once, or failed saying why.

The database, not Redis, is the record of what must run: a queued `Run` row is the work,
its Celery message only the doorbell. The doorbell can be lost while the row stays
queued: Redis restarted without persistence (every queued message gone), or a task was
taken and acknowledged without ever claiming its run. Without this sweep such a run would
show "queued" until the queue timeout (300 s) and then fail as "busy", holding one of its
student's run slots all that time.

A run is lost when it has been queued for `GRACE_S` (its publish after commit is done by
then) and its id is in no message of its queue's lists nor among the messages handed to
a worker and not yet acknowledged (kombu's `unacked` hash: prefetched, running, or
waiting for a retry's countdown). It is looked for twice, a moment apart, since a message
moves from the list to `unacked` in two steps. A lost run is sent again once
(`Run.resent_at`); lost again, it fails with the reason (`message_lost`).
"""

from __future__ import annotations

import logging
import re
import time
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import failures, redis_clients
from labs.runs.models import Run
from labs.runs.result_store import settle_followers
from labs.runs.telemetry import PRIORITY_SUFFIXES

logger = logging.getLogger(__name__)

GRACE_S = 3.0
RECHECK_AFTER_S = 0.2
SCAN_AT_MOST = 50_000  # messages read per look, in the lists and in unacked each
_RUN_ID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def ids_in_messages(queues: set[str]) -> set[str]:
    """Every run id (any UUID) found in the messages of `queues` and in `unacked`."""
    return ids_in_lists(queues) | set(deliveries())


def ids_in_lists(queues: set[str]) -> set[str]:
    """Every run id (any UUID) found in the messages waiting in `queues`' lists."""
    r = redis_clients.sweeper_broker()
    found: set[str] = set()
    for queue in sorted(queues):
        for suffix in PRIORITY_SUFFIXES:
            for raw in r.lrange(queue + suffix, 0, SCAN_AT_MOST):
                found.update(m.decode() for m in _RUN_ID.findall(raw))
    return found


def deliveries() -> dict[str, list[str]]:
    """The messages handed to a worker and not yet acknowledged (kombu's `unacked` hash),
    by run id (any UUID in a message): each one's delivery tags."""
    found: dict[str, list[str]] = {}
    for read, (tag, raw) in enumerate(
        redis_clients.sweeper_broker().hscan_iter("unacked", count=1000)
    ):
        for match in set(_RUN_ID.findall(raw)):
            found.setdefault(match.decode(), []).append(tag.decode())
        if read >= SCAN_AT_MOST:
            break
    return found


def waiting_long_enough(now) -> Q:
    """Queued runs that need a worker and were sent (or sent again) over GRACE_S ago."""
    cutoff = now - timedelta(seconds=GRACE_S)
    sent_before = Q(resent_at__isnull=True, created_at__lt=cutoff) | Q(resent_at__lt=cutoff)
    return Q(status=Run.Status.QUEUED, same_as__isnull=True) & ~Q(queue="") & sent_before


def resend_lost(now=None) -> tuple[int, int]:
    """Send lost runs again, or fail those lost a second time: (re-sent, failed)."""
    from labs.runs.dispatch import publish

    now = now or timezone.now()
    runs = list(
        Run.objects.filter(waiting_long_enough(now)).only(
            "pk", "lab", "queue", "priority", "resent_at"
        )
    )
    if not runs:
        return 0, 0
    queues = {run.queue for run in runs}
    present = ids_in_messages(queues)
    missing = [run for run in runs if str(run.pk) not in present]
    if not missing:
        return 0, 0
    time.sleep(RECHECK_AFTER_S)
    present = ids_in_messages(queues)
    resent = failed = 0
    for run in missing:
        if str(run.pk) in present:
            continue
        still = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED)
        lab = get_lab(run.lab)
        if run.resent_at is None and lab is not None:
            if still.filter(resent_at__isnull=True).update(resent_at=now):
                logger.warning("run %s: its message is gone; sending it again", run.pk)
                resent += publish(run, lab)
        elif still.update(
            status=Run.Status.FAILED, finished_at=now, **failures.failure("message_lost")
        ):
            logger.warning("run %s: its message was lost again; failed", run.pk)
            settle_followers([run.pk])
            failed += 1
    return resent, failed
