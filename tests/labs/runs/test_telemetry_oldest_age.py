"""The oldest waiting run's age is never negative, even for a run made after the sampler
read its clock (the operations page once drew −0.17 s)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.runs import telemetry, telemetry_store
from labs.runs.models import Run
from tests.base import make_user

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def test_a_run_made_after_the_clock_was_read_has_waited_zero_seconds(own_queues):
    quick, _heavy = own_queues
    read_at = timezone.now()
    # made 0.17 s after the sampler's clock: without the clamp its age is -0.17
    Run.objects.create(
        owner=make_user("alice"), lab="drain", params={}, seed=1, queue=quick,
        status="queued", created_at=read_at + timedelta(seconds=0.17),
    )  # fmt: skip
    snap = telemetry.Sampler().tick(now=read_at)
    assert snap is not None
    assert snap["queues"][quick]["depth"] == 1
    assert snap["queues"][quick]["oldest_s"] == 0
    assert telemetry_store.samples()[-1]["q"][quick][1] == 0  # what the chart draws
