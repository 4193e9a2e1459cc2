"""Heavy work cannot crowd out a quick lab: real workers, one per queue, on the real Redis.

Bob redrives four big kept DLQs at once (four drains on the heavy queue, each a chain of
20 s tasks); Alice then presses Run on a quick lab. Her run must finish while Bob's drains
are still going and while two of his drain tasks still wait in the heavy queue for a
heavy worker, and the quick worker must never have taken a drain task: that is what makes
the bound of docs/ARCHITECTURE.md ("a quick lab waits only behind quick labs") hold,
whatever the heavy queue holds. An ordering, not a timing (bench/bench_fairness.py times it).
Also: with no worker at all, a queued run ends failed saying the runners are busy or down.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from labs.runs import retained_queue
from labs.runs.models import Run
from tests.base import make_user
from tests.e2e.test_run import wait_for
from tests.labs.web.test_views import GOOD
from tests.live_helpers import keep_parked
from tests.worker_helpers import database_url, forget_queue, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
HX = {"HTTP_HX_REQUEST": "true"}


def start(queue: str, log: Path, **env: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), **env}
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queue,
             "--concurrency=2", "--loglevel=INFO", "-n", f"{queue}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


@pytest.fixture
def two_workers(tmp_path, settings):
    tag = uuid.uuid4().hex[:8]
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = f"e2e-quick-{tag}", f"e2e-heavy-{tag}"
    env = {"LAB_QUEUE": settings.LAB_QUEUE, "LAB_HEAVY_QUEUE": settings.LAB_HEAVY_QUEUE}
    procs = [
        start(settings.LAB_QUEUE, tmp_path / "quick.log", **env),
        start(settings.LAB_HEAVY_QUEUE, tmp_path / "heavy.log", **env),
    ]
    # Both consuming before the test starts: a heavy worker still starting would leave the
    # drains waiting, and the test would show less than it should.
    for log in ("quick.log", "heavy.log"):
        deadline = time.monotonic() + 60
        while " ready." not in (tmp_path / log).read_text():
            if time.monotonic() > deadline:
                pytest.fail(f"the {log[:-4]} worker did not start:\n{(tmp_path / log).read_text()}")
            time.sleep(0.2)
    yield tmp_path
    for proc in procs:
        stop_worker(proc)
    forget_queues(settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE)


def forget_queues(*queues: str) -> None:
    """Delete the test queues and what the broker keeps for them."""
    for queue in queues:
        forget_queue(queue)


def test_four_big_redrives_do_not_hold_up_a_quick_lab(client, settings, two_workers):
    settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = 4
    bob, alice = make_user("bob"), make_user("alice")
    bobs = [
        Run.objects.create(
            owner=bob,
            lab="poison-live",
            params={},
            seed=0,
            status="succeeded",
            finished_at=timezone.now(),
        )
        for _ in range(4)
    ]
    try:
        for run in bobs:
            # 400 parked messages: a drain of at most 20 a second takes 20 s or more.
            keep_parked(run.pk, [f"pdf-{i}" for i in range(400)])
        client.force_login(bob)
        for run in bobs:
            answer = client.post(reverse("run-queue-redrive", args=[run.pk]), {}, **HX)
            assert answer.status_code == 200, answer.content.decode()[:500]

        client.force_login(alice)
        assert client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX).status_code == 200
        quick = Run.objects.get(owner=alice)
        assert quick.queue == settings.LAB_QUEUE
        quick = wait_for(quick, {"succeeded", "failed"}, two_workers / "quick.log", timeout_s=60)
        waiting_heavy = _tasks_waiting(settings.LAB_HEAVY_QUEUE)

        assert quick.status == "succeeded", quick.error
        # Four drains, two heavy processes: two drain tasks were still waiting for a heavy
        # worker when the quick run was done, so it never stood in line behind them.
        assert waiting_heavy >= 1, "no heavy task waited: the run did not overlap the drains"
        quick_log = (two_workers / "quick.log").read_text()
        heavy_log = (two_workers / "heavy.log").read_text()
        assert "labs.tasks.execute_run[" in quick_log
        # The task keeps its name from before the rename (labs.runs.tasks.drain_retained_queue).
        assert "labs.tasks.drain_kept_queue[" not in quick_log  # never consumed heavy work
        assert heavy_log.count("labs.tasks.drain_kept_queue[") >= 2
        assert "labs.tasks.execute_run[" not in heavy_log
        still_draining = [
            run for run in bobs if retained_queue.snapshot(run.pk)["busy"] or _backlog(run)
        ]
        assert still_draining, "the drains ended before the quick lab: nothing was shown"
        assert Run.objects.filter(pk__in=[r.pk for r in bobs], drain_until__gt=quick.finished_at)
    finally:
        for run in bobs:
            retained_queue.clean_run_keys(run.pk)


def _tasks_waiting(queue: str) -> int:
    """Task messages still in the broker's list for `queue` (not yet taken by a worker)."""
    import redis

    r = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    try:
        return int(r.llen(queue))
    finally:
        r.close()


def _backlog(run: Run) -> int:
    snap = retained_queue.snapshot(run.pk)
    return snap["depth"] + snap["in_flight"] + snap["dlq_depth"]


def test_with_no_worker_a_queued_run_ends_failed_saying_so(client, settings, published):
    settings.LAB_QUEUE_TIMEOUT_S = 60
    alice = make_user("alice")
    client.force_login(alice)
    assert client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX).status_code == 200
    run = Run.objects.get(owner=alice)
    assert run.status == "queued"
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(seconds=61))

    call_command("sweep_runs")

    run.refresh_from_db()
    assert run.status == "failed"
    assert "runners are all busy, or none is running" in run.error
    page = client.get(run.get_absolute_url()).content.decode()
    assert "runners are all busy, or none is running" in page
