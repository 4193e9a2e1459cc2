"""A real worker's beats make it alive to the site; stopping it makes new Runs refuse at once
in words and /healthz/deep name its queue. Real Redis, a real Celery worker process."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings
from django.urls import reverse

from labs.runs import telemetry_store
from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from tests.base import make_user
from tests.e2e.test_run import wait_for
from tests.labs.web.test_views import GOOD
from tests.worker_helpers import forget_queue, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
HX = {"HTTP_HX_REQUEST": "true"}


def wait_until(check, what: str, log, timeout_s: float = 60):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    pytest.fail(f"{what}; worker log:\n{log.read_text()[-3000:]}")


def test_a_stopped_worker_makes_runs_refuse_at_once_and_the_deep_check_name_its_queue(
    client, tmp_path, settings, own_queues
):
    queue = settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = own_queues[0]
    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log, TELEMETRY_PREFIX=settings.TELEMETRY_PREFIX)
    try:
        alive = lambda: telemetry_store.workers_alive([queue])[queue]  # noqa: E731
        wait_until(alive, "the worker never beat", log)
        sampler = Sampler()
        assert sampler.tick()["queues"][queue]["workers"] == 1
        alice = make_user("alice")
        client.force_login(alice)

        response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
        assert response.status_code == 200
        run = wait_for(Run.objects.get(owner=alice), {"succeeded", "failed"}, log)
        assert run.status == "succeeded", run.error

        stop_worker(proc)  # a warm shutdown: the worker says it is gone
        assert alive() == []
        assert sampler.tick()["queues"][queue]["workers"] == 0
        changed = {**GOOD, "per_worker": "90"}  # not in the result store
        response = client.post(reverse("lab-detail", args=["drain"]), changed, **HX)
        assert response.status_code == 503
        assert "No lab runner is up" in response.content.decode()
        assert Run.objects.filter(owner=alice).count() == 1

        # The stored result is still answered at once, with no worker.
        response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
        assert response.status_code == 200
        assert Run.objects.filter(owner=alice, status="succeeded").count() == 2

        # (Its status may say `down` too: the ping check asks every worker on the shared
        # Redis, and other checkouts' workers come and go.)
        with override_settings(HEALTH_TOKEN="e2e-monitor"):
            body = client.get(
                reverse("healthz-deep"), headers={"authorization": "Bearer e2e-monitor"}
            ).json()
        assert body["status"] in {"degraded", "down"}
        assert "queues" in body["degraded"]
        assert f"{queue}: no worker alive" in body["checks"]["queues"]["detail"]
    finally:
        stop_worker(proc)
        forget_queue(queue)
