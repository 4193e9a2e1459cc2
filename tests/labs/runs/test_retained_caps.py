"""Retained DLQs are capped per student and in all, on the real Redis: oldest dropped, owner
told."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.runs import retained_queue
from labs.runs.models import Run
from labs.runs.retained_caps import enforce_retained_caps, retained_runs
from tests.live_helpers import keep_parked

pytestmark = pytest.mark.redis


@pytest.fixture
def keep(db):
    """`keep(owner, minutes_ago)`: a finished poison-live run with a retained DLQ of its own."""
    made: list[Run] = []

    def make(owner, minutes_ago: int) -> Run:
        finished = timezone.now() - timedelta(minutes=minutes_ago)
        run = Run.objects.create(
            owner=owner,
            lab="poison-live",
            params={},
            seed=0,
            status="succeeded",
            finished_at=finished,
        )
        keep_parked(run.pk, [f"m-{len(made)}"])
        made.append(run)
        return run

    yield make
    for run in made:
        retained_queue.clean_run_keys(run.pk)


def has_queue(run: Run) -> bool:
    try:
        retained_queue.snapshot(run.pk)
    except retained_queue.QueueGone:
        return False
    return True


def test_a_student_keeps_at_most_the_cap_the_oldest_go_first(people, keep, settings):
    settings.LAB_KEPT_DLQ_PER_USER = 2
    oldest, middle, newest = keep(people.alice, 30), keep(people.alice, 20), keep(people.alice, 10)
    bobs = keep(people.bob, 40)

    assert enforce_retained_caps() == 1

    assert [has_queue(r) for r in (oldest, middle, newest, bobs)] == [False, True, True, True]
    oldest.refresh_from_db()
    assert oldest.dlq_note == "per_user"
    assert {r.pk for r in retained_runs()} == {middle.pk, newest.pk, bobs.pk}


def test_the_total_cap_drops_the_oldest_of_anyone(people, keep, settings):
    settings.LAB_KEPT_DLQ_PER_USER = 5
    settings.LAB_KEPT_DLQ_TOTAL = 2
    bobs_old = keep(people.bob, 50)
    alices = [keep(people.alice, 40), keep(people.alice, 5)]

    assert enforce_retained_caps() == 1

    assert not has_queue(bobs_old) and all(has_queue(r) for r in alices)
    bobs_old.refresh_from_db()
    assert bobs_old.dlq_note == "total"


def test_the_owner_reads_why_on_the_queue_panel(client, people, keep, settings):
    settings.LAB_KEPT_DLQ_PER_USER = 1
    dropped, _kept = keep(people.alice, 20), keep(people.alice, 10)
    enforce_retained_caps()
    client.force_login(people.alice)
    html = client.get(dropped.get_absolute_url()).content.decode()
    assert "deleted to make room: each student keeps at most 1" in html
