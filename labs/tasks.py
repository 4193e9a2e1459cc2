"""The Celery task that runs a lab: claim the run, call the lab, save what came out."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from labs.catalogue import get_lab
from labs.execution import run_lab
from labs.lease import LEASE_S, LeaseKeeper
from labs.models import Run
from labs.run_progress import RunProgress

logger = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def execute_run(self, run_id: str) -> str:
    """Run one saved lab run. Safe to deliver twice: a run already taken is left alone.

    A second delivery while another worker holds the run (its lease is live) checks
    back once the lease would have run out: if that worker died meanwhile, this one
    takes the run over instead of dropping it.
    """
    run = Run.objects.filter(pk=run_id).only("lab").first()
    if run is None:
        return "missing"
    lab = get_lab(run.lab)
    if lab is None:
        Run.objects.filter(pk=run_id).update(status=Run.Status.FAILED, error="Unknown lab.")
        return "failed"
    run = Run.objects.claim(run_id, lease_s=LEASE_S)
    if run is None:
        held = Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).first()
        if held and held.lease_expires_at and held.lease_expires_at > timezone.now():
            wait_s = (held.lease_expires_at - timezone.now()).total_seconds() + 1
            raise self.retry(countdown=wait_s, max_retries=10)
        return "skipped"
    progress = RunProgress(run, limit_s=lab.time_limit_s)
    try:
        with LeaseKeeper(run.pk):
            result = run_lab(lab, run.params, run.seed, progress)
    except SoftTimeLimitExceeded:
        run.mark_failed(f"The run took longer than its limit of {lab.time_limit_s} s.")
        return "failed"
    except ValueError as exc:
        # The models raise ValueError for arguments outside their bounds.
        run.mark_failed(f"The lab refused these parameters: {exc}")
        return "failed"
    except Exception as exc:
        logger.exception("lab run %s (%s) crashed", run_id, lab.slug)
        run.mark_failed(f"The lab crashed: {type(exc).__name__}: {exc}")
        return "failed"
    run.mark_succeeded(result)
    return "succeeded"


def hard_limit_for(time_limit_s: int) -> int:
    """When Celery kills a run outright: a little after its soft limit asked it to stop."""
    return time_limit_s + 15
