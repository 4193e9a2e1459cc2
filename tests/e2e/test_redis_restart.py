"""A real Redis restart leaves no run waiting for a message that is gone.

A Redis server of the test's own (port 6400+, no persistence, as `./dev` starts the
site's) is the broker of a real worker; one run is running on it and three are queued
behind, when the server is stopped with `SHUTDOWN NOSAVE` and started again, empty. The
sweeper (its passes, here in the test) finds each queued run's message gone and sends it
again once; the worker, back on the new server, runs them all. Within seconds, not the
300 s a queued run used to wait before failing as "busy". The sampler ticks beside the
sweeps, as in the sweeper's process: the operations page's samples show the backlog stuck
behind the restart, then drained."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.runs import lost, telemetry_store
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from labs.runs.telemetry import Sampler
from tests.base import make_user
from tests.e2e.test_killed import SHORT_FANOUT, wait_until
from tests.labs.web.test_views import GOOD
from tests.redis_helpers import RedisServer, site_broker_on
from tests.worker_helpers import new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def own_broker(tmp_path, settings):
    """The site's broker (this process's Celery app and settings) on a Redis of its own."""
    with site_broker_on(RedisServer(tmp_path / "redis").start(), settings) as server:
        yield server


def test_after_a_redis_restart_each_queued_run_is_sent_again_once_and_runs(
    client, own_queues, own_broker, tmp_path, settings
):
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue = new_queue_name("restart")
    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log, REDIS_URL=own_broker.url())
    try:
        wait_until(lambda: " ready." in log.read_text(), "the worker ready", [log])
        client.force_login(make_user("alice"))
        # About 10 s: still running when the server stops, whatever the machine's load.
        ten_s = {**SHORT_FANOUT, "jobs": "200"}
        assert client.post(reverse("lab-detail", args=["fanout-live"]), ten_s).status_code
        running = Run.objects.get()
        wait_until(
            lambda: Run.objects.filter(pk=running.pk, status="running").exists(),
            "the first run starting", [log],
        )  # fmt: skip
        queued = []
        for i, name in enumerate(["bob", "carol", "dave"]):
            client.force_login(make_user(name))
            arrivals = GOOD["arrivals"].replace("50, 800", f"{50 + i}, 800", 1)
            url = reverse("lab-detail", args=["drain"])
            assert client.post(url, {**GOOD, "arrivals": arrivals}, **HX).status_code == 200
            queued.append(Run.objects.order_by("-created_at").first())
        ids = {str(run.pk) for run in queued}
        assert {run.status for run in queued} == {"queued"}
        assert ids <= lost.ids_in_messages({queue})

        own_broker.shutdown_nosave()
        own_broker.start()  # the same port, empty: every message is gone
        assert not ids & lost.ids_in_messages({queue})

        resent = failed = 0
        sampler = Sampler()

        def all_finished() -> bool:
            nonlocal resent, failed
            sampler.tick()
            report = sweep_once()
            resent, failed = resent + report.resent, failed + report.lost
            return not Run.objects.filter(status__in=["queued", "running"]).exists()

        wait_until(all_finished, "every run finishing", [log], timeout_s=90)
        sampler.tick()
    finally:
        stop_worker(proc)
    assert (resent, failed) == (3, 0)
    for run in [running, *queued]:
        run.refresh_from_db()
        assert run.status == "succeeded", run.error
    assert all(run.resent_at is not None and run.attempts == 1 for run in queued)
    assert running.resent_at is None  # its worker kept it: nothing was sent again
    # What the operations page draws: the three waiting, then none.
    depths = [sample["q"][queue][0] for sample in telemetry_store.samples() if queue in sample["q"]]
    assert depths[0] == 3 and depths[-1] == 0, depths
