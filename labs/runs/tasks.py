"""The Celery tasks: run a lab (claim the run, call the lab, save what came out), and drain
a finished experiment's retained queue after a redrive from the queue panel."""

from __future__ import annotations

import logging

import redis
from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django import db
from django.conf import settings
from django.utils import timezone

import labs.runs.heartbeat  # noqa: F401 - every worker that loads the tasks beats
import labs.runs.task_connections  # noqa: F401 - and keeps its database connection
from labs.catalogue.entries import get_lab
from labs.runs import ended, result_store, retained_queue, succeeded
from labs.runs.draining import end_drain, hold_drain
from labs.runs.execution import ParamsRefused, run_lab
from labs.runs.lease import LeaseKeeper, lease_s
from labs.runs.models import Run
from labs.runs.run_progress import RunProgress
from labs.runs.turns import TURN_WAIT_S, wait_for_turn

logger = logging.getLogger(__name__)


@shared_task(
    name="labs.tasks.execute_run",  # the name from before the move: queued messages still match
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
)
def execute_run(self, run_id: str) -> str:
    """Run one saved lab run. Safe to deliver twice: a run already taken is left alone.

    A second delivery while another worker holds the run (its lease is live) checks
    back once the lease would have run out: if that worker died meanwhile, this one
    takes the run over instead of dropping it. A database that does not answer is not
    the run's fault: the task is retried every `DB_RETRY_S` (its message stays with the
    broker meanwhile) rather than acknowledged as done with the run still queued; past
    `DB_RETRIES` the sweeper finds the run without a message (`labs.runs.lost`).
    """
    try:
        return _execute(self, run_id)
    except (db.OperationalError, db.InterfaceError) as exc:
        logger.warning("run %s: the database does not answer (%s); retrying", run_id, exc)
        db.close_old_connections()
        raise self.retry(exc=exc, countdown=DB_RETRY_S, max_retries=DB_RETRIES) from exc


DB_RETRY_S = 3
DB_RETRIES = 40  # two minutes of outage


def _execute(self, run_id: str) -> str:
    # The claim comes first: it is the one query a run that is not to be done needs too.
    run = Run.objects.claim(run_id, lease_s=lease_s())
    if run is None:
        held = Run.objects.filter(pk=run_id).only("status", "lease_expires_at").first()
        if held is None:
            # Deleted while queued (a draft replaced by a newer one): a press still waiting
            # on it stops waiting now rather than at the end of its moment.
            ended.announce([run_id])
            return "missing"
        lease_ends = held.lease_expires_at
        if held.status == Run.Status.RUNNING and lease_ends and lease_ends > timezone.now():
            wait_s = (lease_ends - timezone.now()).total_seconds() + 1
            raise self.retry(countdown=wait_s, max_retries=10)
        return "skipped"
    lab = get_lab(run.lab)
    if lab is None:
        run.mark_failed("unknown_lab")
        result_store.settle_followers([run.pk])
        ended.announce([run.pk])
        return "failed"
    queue = run.queue or settings.LAB_HEAVY_QUEUE
    if wait_for_turn(
        run,
        # Back of the heavy queue: other students' runs go first (labs.runs.turns). A fresh
        # message, so the waits never count against the retries of the database's outages.
        lambda: _again_later(run_id, queue, lab.time_limit_for(run.params)),
    ):
        return "waiting its turn"
    # An identical run finished while this one waited (the claim looked): its result is
    # this one's.
    stored = None if run.stored_pk in (None, run.pk) else result_store.stored_run(run.stored_pk)
    if stored is not None:
        _succeeded(run, same_as=stored)
        return "stored"
    if lab.kind == "experiment":
        # A run taken over from a dead worker starts from empty keys, not its leftovers.
        _clean_keys(run.pk)
    limit_s = lab.time_limit_for(run.params)
    try:
        with LeaseKeeper(run.pk), RunProgress(run, limit_s=limit_s) as progress:
            result = run_lab(lab, run.params, run.seed, progress)
    except SoftTimeLimitExceeded:
        return _failed(run, lab, "time_limit", limit_s=limit_s)
    except ParamsRefused as exc:
        # Checked before the runner starts; any other error, ValueError too, is the lab's bug.
        return _failed(run, lab, "refused", reasons=str(exc))
    except redis.OutOfMemoryError as exc:
        # Not the lab's bug, and not Redis being down: a full Redis, said so (attack D7).
        logger.warning("lab run %s (%s): Redis is full: %s", run_id, lab.slug, exc)
        return _failed(run, lab, "redis_full")
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        # The experiment's Redis restarted or went away mid-run: said in words, never its
        # host and port (the log has them).
        logger.warning("lab run %s (%s): lost its Redis: %s", run_id, lab.slug, exc)
        return _failed(run, lab, "redis_lost")
    except Exception as exc:
        logger.exception("lab run %s (%s) crashed", run_id, lab.slug)
        return _failed(run, lab, "crashed", error=f"{type(exc).__name__}: {exc}")
    _succeeded(run, result)
    return "succeeded"


def _again_later(run_id: str, queue: str, limit_s: int) -> None:
    """The run's message once more, after the others' turns, with the limits it was sent
    with (a message without them would let a stuck run hold its worker for good)."""
    execute_run.apply_async(
        args=(run_id,),
        queue=queue,
        countdown=TURN_WAIT_S,
        soft_time_limit=limit_s,
        time_limit=hard_limit_for(limit_s),
    )


def _succeeded(run: Run, result: dict | None = None, *, same_as: Run | None = None) -> None:
    """Save the result and hand it to the runs waiting on this one."""
    if run.mark_succeeded(result, same_as=same_as):
        followers = result_store.settle_followers_of(run)
        # Before the announcement: the press that wakes on it shows a challenge's credit,
        # and the draft kept for it. Told as it is held here (saved as it ended) when no
        # run followed it: the listeners then read nothing back.
        if str(run.pk) in succeeded.tell([run.pk] if followers else [run]):
            run.draft = False
        # A press waiting on it (or on a follower) answers now, from what is said here.
        ended.announce_succeeded(run)
    else:  # ended meanwhile by someone else (the sweeper): settle as it ended
        result_store.settle_followers([run.pk])
        ended.announce([run.pk])


def _failed(run: Run, lab, code: str, **args) -> str:
    run.mark_failed(code, **args)
    result_store.settle_followers([run.pk])
    ended.announce([run.pk])
    if lab.kind == "experiment":
        _clean_keys(run.pk)  # a failed run keeps nothing, not even its DLQ
    return "failed"


def _clean_keys(run_pk) -> None:
    try:
        retained_queue.clean_run_keys(run_pk)
    except redis.RedisError:
        logger.warning("could not clean the keys of run %s; their TTL will", run_pk)


def hard_limit_for(time_limit_s: int) -> int:
    """When Celery kills a run outright: a little after its soft limit asked it to stop."""
    return time_limit_s + 15


@shared_task(
    name="labs.tasks.drain_kept_queue",  # the name from before the move and the rename
    ignore_result=True,
    soft_time_limit=int(retained_queue.DRAIN_MAX_S) + 10,
)
def drain_retained_queue(run_id: str, token: str) -> str:
    """Redrive (if asked) and drain a finished run's retained queue for a few seconds.

    Holds the run's drain lock (`token`); if work is left when it lets go, it starts the
    next drain, so a long redrive goes on in short tasks until the queue is empty or gone.
    """
    hold_drain(run_id)
    if not retained_queue.drain(run_id, token):
        end_drain(run_id)
        return "done"
    try:
        again = retained_queue.claim_drain(run_id)
    except retained_queue.QueueGone:
        end_drain(run_id)
        return "gone"
    if again:
        hold_drain(run_id)
        drain_retained_queue.apply_async(args=(run_id, again), queue=settings.LAB_HEAVY_QUEUE)
    return "more"
