"""The one list of labs: each lab's folder, in the order the course meets them.

A lab lives in one folder, `labs/course/<unit>/<lab>/`: `run.py` (its model side, ending
with `RUNNER = LabRunner(...)`), `charts.py` (what a result draws) and `lab.py` (its entry:
title, intro, charts, prompts, try-next, production snippet; `LAB = Lab.of(run.RUNNER, ...)`).
Adding a lab is that folder, one line below, and its translations (docs/ARCHITECTURE.md,
"Adding a lab"). The web forms, the `lab` management command and the Celery task all read
this list.
"""

from __future__ import annotations

from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.assignment_05.cold_cache import lab as cold_cache
from labs.course.assignment_05.drain_math import lab as drain_math
from labs.course.assignment_05.job_cost import lab as job_cost
from labs.course.assignment_05.phase_map import lab as phase_map
from labs.course.assignment_05.pool_trap import lab as pool_trap
from labs.course.assignment_05.trapped_live import lab as trapped_live
from labs.course.assignment_05.trapped_service import lab as trapped_service
from labs.course.lesson_07.answer_fast import lab as answer_fast
from labs.course.lesson_07.at_least_once import lab as at_least_once
from labs.course.lesson_07.batching import lab as batching
from labs.course.lesson_07.busy_minute import lab as busy_minute
from labs.course.lesson_07.fanout import lab as fanout
from labs.course.lesson_07.fanout_live import lab as fanout_live
from labs.course.lesson_07.provider_outage import lab as provider_outage
from labs.course.lesson_07.queued_read import lab as queued_read
from labs.course.lesson_12.burst_live import lab as burst_live
from labs.course.lesson_12.db_knee import lab as db_knee
from labs.course.lesson_12.drain import lab as drain
from labs.course.lesson_12.drain_compare import lab as drain_compare
from labs.course.lesson_12.fifo_live import lab as fifo_live
from labs.course.lesson_12.no_dlq import lab as no_dlq
from labs.course.lesson_12.retention import lab as retention
from labs.course.lesson_12.scaling_signal import lab as scaling_signal
from labs.course.lesson_12.target_tracking import lab as target_tracking
from labs.course.lesson_13.availability import lab as availability
from labs.course.lesson_13.backoff import lab as backoff
from labs.course.lesson_13.breaker import lab as breaker
from labs.course.lesson_13.breaker_live import lab as breaker_live
from labs.course.lesson_13.cascade import lab as cascade
from labs.course.lesson_13.deadline import lab as deadline
from labs.course.lesson_13.degradation import lab as degradation
from labs.course.lesson_13.health_checks import lab as health_checks
from labs.course.lesson_13.idempotent_charges import lab as idempotent_charges
from labs.course.lesson_13.layered_retries import lab as layered_retries
from labs.course.lesson_13.poison_live import lab as poison_live
from labs.course.lesson_13.poison_messages import lab as poison_messages
from labs.course.lesson_13.retried_payment import lab as retried_payment
from labs.course.lesson_13.retries_live import lab as retries_live
from labs.course.lesson_13.retry_storm import lab as retry_storm
from labs.course.lesson_13.timeouts import lab as timeouts

LABS: tuple[Lab, ...] = (
    answer_fast.LAB,
    fanout.LAB,
    batching.LAB,
    busy_minute.LAB,
    at_least_once.LAB,
    fanout_live.LAB,
    provider_outage.LAB,
    queued_read.LAB,
    drain.LAB,
    drain_compare.LAB,
    scaling_signal.LAB,
    target_tracking.LAB,
    db_knee.LAB,
    burst_live.LAB,
    fifo_live.LAB,
    retention.LAB,
    no_dlq.LAB,
    timeouts.LAB,
    deadline.LAB,
    backoff.LAB,
    retry_storm.LAB,
    layered_retries.LAB,
    breaker.LAB,
    degradation.LAB,
    cascade.LAB,
    idempotent_charges.LAB,
    retried_payment.LAB,
    poison_messages.LAB,
    health_checks.LAB,
    availability.LAB,
    poison_live.LAB,
    retries_live.LAB,
    breaker_live.LAB,
    drain_math.LAB,
    trapped_service.LAB,
    trapped_live.LAB,
    phase_map.LAB,
    cold_cache.LAB,
    job_cost.LAB,
    pool_trap.LAB,
)

_BY_SLUG = {lab.slug: lab for lab in LABS}
if len(_BY_SLUG) != len(LABS):
    raise RuntimeError("two labs share a slug")


def get_lab(slug: str) -> Lab | None:
    """The lab with this slug, or None."""
    return _BY_SLUG.get(slug)


def labs_for_unit(unit_slug: str) -> list[Lab]:
    """The labs of one unit, in the order the lesson meets them."""
    return [lab for lab in LABS if lab.unit == unit_slug]


def prompts_for(slug: str) -> tuple[Prompt, ...]:
    """The lab's prediction prompts (none for a slug not in the list)."""
    lab = _BY_SLUG.get(slug)
    return lab.prompts if lab is not None else ()
