"""Handing a saved run to the workers, and telling the user when that cannot happen."""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from labs.catalogue.entries import LABS
from labs.catalogue.lab import Lab
from labs.runs import kept_queue
from labs.runs.models import Run
from labs.runs.tasks import drain_kept_queue, execute_run, hard_limit_for

logger = logging.getLogger(__name__)

OFFLINE_MESSAGE = (
    "The lab runner is offline (Redis at {url} does not answer), so this run was not "
    "started. Start Redis and a worker (see the README), then press Run again."
)


EXPERIMENT_SLUGS = [lab.slug for lab in LABS if lab.kind == "experiment"]


class RunnerOffline(Exception):
    """The broker cannot be reached: a run would wait forever, so none is made."""


class RunRefused(Exception):
    """No run was made, for a reason the user can act on; `status` is the HTTP answer."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def check_broker(timeout_s: float = 1.0) -> None:
    """Raise RunnerOffline unless Redis answers a PING within `timeout_s`."""
    client = redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=timeout_s, socket_timeout=timeout_s
    )
    try:
        client.ping()
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RunnerOffline(offline_message()) from exc
    finally:
        client.close()


def offline_message() -> str:
    url = settings.CELERY_BROKER_URL.split("@")[-1]  # never show a password
    return OFFLINE_MESSAGE.format(url=url)


def start_run(user, lab: Lab, params: dict[str, Any], seed: int) -> Run:
    """Save a queued run of `lab` for `user` and send it to the workers, or refuse.

    The one way a run is started from the web (the lab page, an assignment, a re-run),
    so the per-user cap and the broker check hold everywhere.
    """
    return start_runs(user, lab, [(params, seed)])[0]


def start_runs(user, lab: Lab, runs: list[tuple[dict[str, Any], int]]) -> list[Run]:
    """Start several runs of `lab` together (e.g. a before/after pair): all of them or none."""
    cap = settings.LAB_MAX_ACTIVE_RUNS_PER_USER
    active = Run.objects.filter(owner=user).active()
    if active.count() + len(runs) > cap:
        reason = (
            f"You already have {cap} runs going"
            if len(runs) == 1
            else f"This starts {len(runs)} runs, and you may have at most {cap} going at once"
        )
        raise RunRefused(f"{reason}. Wait for one to finish, then press Run again.", 429)
    if lab.kind == "experiment":
        experiments_cap = settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER
        if active.filter(lab__in=EXPERIMENT_SLUGS).count() + len(runs) > experiments_cap:
            raise RunRefused(
                f"You already have {experiments_cap} real-queue experiments going, the most "
                "one student may run at once on the shared Redis. Wait for one to finish, "
                "then press Run again.",
                429,
            )
    try:
        check_broker()
    except RunnerOffline as exc:
        raise RunRefused(str(exc), 503) from exc
    with transaction.atomic():
        made = [
            Run.objects.create(owner=user, lab=lab.slug, params=params, seed=seed)
            for params, seed in runs
        ]
        for run in made:
            enqueue(run, lab)
    return made


def enqueue(run: Run, lab: Lab) -> None:
    """Send the run to a worker once its row is committed (so the worker can read it).

    If the broker refuses the message, the run is marked failed with the reason, so
    the user never waits on a run that no worker will ever see.
    """

    def publish() -> None:
        try:
            execute_run.apply_async(
                args=[str(run.pk)],
                queue=settings.LAB_QUEUE,
                soft_time_limit=lab.time_limit_s,
                time_limit=hard_limit_for(lab.time_limit_s),
            )
        except (OperationalError, redis.RedisError, OSError) as exc:
            logger.warning("could not enqueue run %s: %s", run.pk, exc)
            Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
                status=Run.Status.FAILED, error=offline_message(), finished_at=timezone.now()
            )

    transaction.on_commit(publish)


def start_drain(run: Run) -> bool:
    """Start draining `run`'s kept queue after a redrive; False if a drain is already going.

    The running drain then finds the new work itself (it looks again after it lets go).
    Raises `kept_queue.QueueGone` once the kept queue has expired.
    """
    token = kept_queue.claim_drain(run.pk)
    if token is None:
        return False

    def publish() -> None:
        try:
            drain_kept_queue.apply_async(args=[str(run.pk), token], queue=settings.LAB_QUEUE)
        except (OperationalError, redis.RedisError, OSError) as exc:
            logger.warning("could not enqueue the drain of run %s: %s", run.pk, exc)
            kept_queue.release_drain(run.pk, token)

    transaction.on_commit(publish)
    return True
