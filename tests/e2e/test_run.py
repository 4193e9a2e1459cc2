"""End to end: a student presses Run, a real Celery worker on the real Redis runs it.

No eager mode: the worker is a separate process started here, listening on a queue of
its own, and it reads and writes the same test database the test client uses.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.management.commands.lab import _as_form_value
from labs.runs import lost
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from tests.base import make_user
from tests.labs.web.test_views import GOOD
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def start_worker(tmp_path: Path, settings, **env: str) -> tuple[subprocess.Popen, Path]:
    """A real worker on a queue of its own; the test's settings send runs to that queue,
    quick and heavy work alike (this worker is the only one that may take either)."""
    queue = new_queue_name()
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue
    log = tmp_path / "worker.log"
    return spawn_worker(queue, log, **env), log


@pytest.fixture
def worker(tmp_path, settings):
    proc, log = start_worker(tmp_path, settings)
    yield proc, log
    stop_worker(proc)
    forget_queue(settings.LAB_QUEUE)


def wait_for(run: Run, statuses: set[str], log: Path, timeout_s: float = 60) -> Run:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in statuses:
            return run
        time.sleep(0.2)
    pytest.fail(f"run stayed {run.status!r}; worker log:\n{log.read_text()[-3000:]}")


def test_it_runs_a_lab_on_a_real_worker_and_shows_the_chart(client, worker):
    proc, log = worker
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    alice, bob = make_user("alice"), make_user("bob")
    client.force_login(alice)

    response = client.post(reverse("lab-detail", args=["drain"]), GOOD, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    run = Run.objects.get(owner=alice)
    assert run.status in {"queued", "running", "succeeded"}

    run = wait_for(run, {"succeeded", "failed"}, log)
    assert run.status == "succeeded", run.error
    assert run.result["summary"] == {
        "peak_backlog": 800, "most_workers": 8, "left_at_end": 0, "seconds": 10,
        "total_arrived": 2900, "total_done": 2900, "worker_seconds": 31, "cleared_at_s": 6,
    }  # fmt: skip
    assert proc.poll() is None, "the worker died"

    page = client.get(run.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert page.status_code == 286
    assert "The backlog peaked at 800 jobs." in page.content.decode()

    client.force_login(bob)
    assert client.get(run.get_absolute_url()).status_code == 404


def experiment_keys(run_pk) -> list[str]:
    from labs.experiments.namespace import Namespace, connect, kept_id, run_key_for

    r = connect(name="qlab-tests")
    try:
        key = run_key_for(run_pk)
        return Namespace(key).keys(r) + Namespace(kept_id(key)).keys(r)
    finally:
        r.close()


SLOW_FANOUT = {"jobs": "600", "workers": "1", "rate_per_worker": "20", "crashes": "0",
               "crash_point": "after_effect", "visibility_timeout_s": "0.5",
               "idempotent": "on", "seed": "1"}  # fmt: skip


def trapped_defaults() -> dict[str, str]:
    """The trapped-live form as its defaults fill it: a 75 s run, killed long before."""
    lab = get_lab("trapped-live")
    return {p.name: _as_form_value(p.default) for p in lab.params} | {"seed": "5"}


@pytest.mark.parametrize(
    ("slug", "form"), [("fanout-live", lambda: SLOW_FANOUT), ("trapped-live", trapped_defaults)]
)
def test_a_run_whose_worker_is_killed_is_queued_again_and_leaves_no_keys(
    client, tmp_path, settings, slug, form
):
    # A short lease, so the dead worker is noticed in seconds (the default is 20 s).
    proc, log = start_worker(tmp_path, settings, LAB_LEASE_S="3")
    queue = settings.LAB_QUEUE
    try:
        alice = make_user("alice")
        client.force_login(alice)
        response = client.post(reverse("lab-detail", args=[slug]), form())
        assert response.status_code == 302
        run = Run.objects.get(owner=alice)

        # Mid-run: the worker has claimed it and its experiment is writing to Redis.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status == "running" and (run.progress or {}).get("samples"):
                break
            assert run.status in {"queued", "running"}, run.error
            time.sleep(0.2)
        else:
            pytest.fail(f"the run never got going; worker log:\n{log.read_text()[-3000:]}")
        assert experiment_keys(run.pk), "the experiment should have keys in Redis by now"

        os.killpg(proc.pid, signal.SIGKILL)  # the worker and its pool child, mid-run
        proc.wait(timeout=10)

        # The sweeper notices the lease ran out and sends the run again (tests/e2e/
        # test_killed.py: another worker finishes it), its keys gone. Judged by what one
        # sweep pass does once the lease is over, not by how soon a loaded machine gets there.
        run.refresh_from_db()
        assert run.lease_expires_at is not None
        while timezone.now() <= run.lease_expires_at:  # nobody renews it now
            time.sleep(0.2)
        sweep_once()
        run.refresh_from_db()
        assert run.status == "queued", f"still {run.status} after a sweep past its lease"
        assert run.resent_at is not None
        assert experiment_keys(run.pk) == []
        # Its new message waits in the queue; the dead worker's delivery is gone.
        assert str(run.pk) in lost.ids_in_messages({queue})
        page = client.get(run.get_absolute_url(), HTTP_HX_REQUEST="true")
        assert page.status_code == 200  # still polling: it will run
    finally:
        stop_worker(proc)
        forget_queue(queue)


def test_a_quick_press_answers_with_its_chart_without_a_poll(client, worker, settings):
    """The POST itself carries the finished chart when the run ends within the wait
    (labs.runs.ended); with no wait it answers with a run still to be polled."""
    _proc, log = worker
    alice = make_user("alice")
    client.force_login(alice)
    url = reverse("lab-detail", args=["drain"])
    first = client.post(url, GOOD, HTTP_HX_REQUEST="true")  # the worker warms up on this one
    wait_for(Run.objects.get(owner=alice), {"succeeded"}, log)

    settings.LAB_PRESS_WAIT_S = 5  # generous: a loaded machine, not the production 0.6 s
    answer = client.post(url, GOOD | {"per_worker": "101"}, HTTP_HX_REQUEST="true")
    answer = answer.content.decode()
    run = Run.objects.get(owner=alice, params__per_worker=101)
    assert run.status == "succeeded" and run.same_as_id is None  # computed, not stored
    assert "status-succeeded" in answer and 'class="chart"' in answer
    assert f'hx-get="{run.get_absolute_url()}"' not in answer  # nothing left to poll

    settings.LAB_PRESS_WAIT_S = 0
    answer = client.post(url, GOOD | {"per_worker": "102"}, HTTP_HX_REQUEST="true")
    answer = answer.content.decode()
    assert "status-queued" in answer and "hx-get=" in answer
    assert first.status_code == 200
