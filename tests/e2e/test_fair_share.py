"""One class's flood waits its own turn on the quick queue: a real worker on the real Redis.

Class A has pressed six phase maps with seeds of their own; then Bob, in class B, presses a
quick lab. All seven messages are on the broker before the worker starts, and the worker
takes one at a time (`--concurrency=1`): the order it takes them in is the broker's, which
is what the priorities set (`labs.runs.fair_share`: class A's runs are sent lower as its
backlog grows, Bob's first at the top). First come, first served, Bob's run would be taken
last; with the fair share it is taken second, right after class A's first. An ordering, not
a timing (bench/class_flood.py times the same with a class of 100).
"""

from __future__ import annotations

import time

import pytest

from labs.catalogue.entries import get_lab
from labs.runs.dispatch import start_run
from labs.runs.models import Run
from teaching.models import Membership
from tests.base import make_user
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def queue(settings):
    """A quick queue of the test's own (its heavy queue apart, as on a site: one queue for
    both is first come, first served); its lists are deleted afterwards."""
    settings.LAB_QUEUE = new_queue_name("e2e-share")
    settings.LAB_HEAVY_QUEUE = new_queue_name("e2e-share-heavy")
    yield settings.LAB_QUEUE
    forget_queue(settings.LAB_QUEUE)


def wait_until_all_end(runs: list[Run], log, timeout_s: float = 120) -> list[Run]:
    ids = [run.pk for run in runs]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not Run.objects.filter(pk__in=ids).exclude(status__in=Run.FINISHED).exists():
            return list(Run.objects.filter(pk__in=ids))
        time.sleep(0.2)
    pytest.fail(f"runs still waiting; worker log:\n{log.read_text()[-3000:]}")


def test_another_classs_quick_run_is_taken_before_the_flooding_classs_later_maps(
    school, queue, tmp_path, settings
):
    phase_map = get_lab("phase-map")
    flooders = [make_user("a1"), make_user("a2")]
    for student in flooders:
        Membership.objects.create(classroom=school.class_a, student=student)
    maps = [start_run(flooders[i // 3], phase_map, phase_map.defaults(), 500 + i) for i in range(6)]
    drain = get_lab("drain")
    bobs = start_run(school.bob, drain, drain.defaults(), 1)  # class B: a quick lab
    assert [run.priority for run in maps] == [0, 1, 2, 2, 3, 3]
    assert bobs.priority == 0

    log = tmp_path / "worker.log"
    worker = spawn_worker(queue, log, concurrency=1, LAB_HEAVY_QUEUE=settings.LAB_HEAVY_QUEUE)
    try:
        ended = wait_until_all_end([*maps, bobs], log)
    finally:
        stop_worker(worker)

    assert {run.status for run in ended} == {"succeeded"}, [run.error for run in ended]
    taken = [run.pk for run in sorted(ended, key=lambda run: run.started_at)]
    # Class A's first map (sent first, at the top) is taken first, then Bob's run, then
    # the rest of class A's in their own order.
    assert taken == [maps[0].pk, bobs.pk, *(run.pk for run in maps[1:])]
