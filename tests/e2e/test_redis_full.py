"""A Redis full of data without a TTL stops no worker: once it has room, the same worker
process takes runs again, and no run is lost.

A Redis server of the test's own (16 MB, `volatile-ttl` as `./dev` starts the site's) is
the broker and the telemetry of a real worker. The worker takes a run and holds it (its
one pool process stopped), a second run waits in the queue behind, and the server is filled
with keys that never expire until it refuses writes. The pool process then runs the first
run, and Redis refuses its acknowledgement: Celery stopped the worker there ("Unrecoverable
error: OutOfMemoryError", the fault bench's finding 5). While Redis is full a press of Run
is refused in words; once the filler is deleted, the worker, never restarted, runs the run
that waited and a new one."""

from __future__ import annotations

import os
import signal

import pytest
from django.urls import reverse

from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from tests.base import make_user
from tests.e2e.test_killed import pool_child, press_drain, taken, wait_until
from tests.redis_helpers import RedisServer, fill_without_ttl, site_broker_on
from tests.worker_helpers import new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def small_redis(tmp_path, settings):
    """The site's broker and telemetry (this process's settings and Celery app) on a small
    Redis of its own, never the shared one."""
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "16mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    settings.TELEMETRY_REDIS_URL = server.url(2)
    with site_broker_on(server, settings):
        yield server


def refused(server: RedisServer, command: str) -> int:
    """How many `command`s the server refused before running them (over maxmemory, here)."""
    stats = server.client().info("commandstats").get(f"cmdstat_{command}", {})
    return int(stats.get("rejected_calls", 0))


def test_a_worker_that_met_a_full_redis_takes_runs_again_once_it_has_room(
    client, small_redis, tmp_path, settings
):
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue = new_queue_name("full")
    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log, REDIS_URL=small_redis.url(),
                        TELEMETRY_REDIS_URL=small_redis.url(2))  # fmt: skip

    def worker_up() -> None:
        if proc.poll() is not None:
            tail = log.read_text()[-3000:]
            pytest.fail(f"the worker stopped (exit code {proc.returncode}):\n{tail}")

    try:
        wait_until(lambda: " ready." in log.read_text(), "the worker ready", [log])
        child = pool_child(proc.pid)
        os.kill(child, signal.SIGSTOP)
        held = press_drain(client, make_user("alice"))
        wait_until(lambda: taken(held), "the worker taking the first run", [log])
        waiting = press_drain(client, make_user("carol"), fixed_workers="5")
        assert waiting.status == "queued"

        fill_without_ttl(small_redis)
        os.kill(child, signal.SIGCONT)  # it runs the held run, then acknowledges it
        # kombu acknowledges with ZREM and HDEL in a MULTI: Redis refuses them.
        wait_until(lambda: refused(small_redis, "zrem") > 0, "the acknowledgement refused", [log])
        held.refresh_from_db()
        assert held.status == "succeeded", held.error

        # A press meanwhile is refused, in words the student can act on.
        refused_run = press_drain(client, make_user("dave"), fixed_workers="6")
        assert (refused_run.status, refused_run.error_code) == ("failed", "redis_full")
        page = client.get(reverse("run-detail", args=[refused_run.pk]), HTTP_HX_REQUEST="true")
        assert "short of memory" in page.content.decode()
        worker_up()

        small_redis.client().delete(*small_redis.client().keys("filler:*"))
        fresh = press_drain(client, make_user("bob"), fixed_workers="4")

        def every_run_ended() -> bool:
            worker_up()
            sweep_once()  # the sweeper's pass: sends again any run whose message was lost
            return not Run.objects.filter(status__in=["queued", "running"]).exists()

        wait_until(every_run_ended, "every run ending", [log], timeout_s=120)
        worker_up()  # the same process: nothing restarted it
    finally:
        stop_worker(proc)
    for run in (held, waiting, fresh):
        run.refresh_from_db()
        assert run.status == "succeeded", run.error
        assert run.attempts == 1
    assert "Unrecoverable error" not in log.read_text()
