"""End to end: a student presses Run, a real Celery worker on the real Redis runs it.

No eager mode: the worker is a separate process started here, listening on a queue of
its own, and it reads and writes the same test database the test client uses.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.management.commands.lab import _as_form_value
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from tests.base import make_user
from tests.test_views import GOOD

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The URL of the test database, for the worker process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(tmp_path: Path, settings, **env: str) -> tuple[subprocess.Popen, Path]:
    """A real Celery worker on a queue no other worker listens to, in a process group of
    its own (so a test can kill it and its pool child at once)."""
    queue = f"e2e-{uuid.uuid4().hex[:8]}"
    # Quick and heavy work alike: this worker is the only one that may take either.
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue
    log = tmp_path / "worker.log"
    env = {**os.environ, "DATABASE_URL": database_url(), "LAB_QUEUE": queue,
           "LAB_HEAVY_QUEUE": queue, **env}  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queue,
             "--concurrency=1", "--loglevel=INFO", "-n", f"{queue}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    return proc, log


def stop_worker(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def forget_queue(queue: str) -> None:
    """Remove what the broker keeps for a test's own queue once its worker is gone: kombu's
    `_kombu.binding.<queue>` set and the queue's lists (one per priority), so test runs do
    not pile up keys on the shared Redis."""
    import redis

    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        keys = [f"_kombu.binding.{queue}", *r.scan_iter(match=f"{queue}*", count=1000)]
        r.delete(*keys)
    finally:
        r.close()


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


def forget_unacked(queue: str) -> None:
    """Drop the task message a killed worker left unacknowledged in the broker, so no other
    worker on the shared Redis restores it later into a queue nobody reads."""
    import redis

    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        for tag, raw in r.hscan_iter("unacked"):
            if queue.encode() in raw:
                r.hdel("unacked", tag)
                r.zrem("unacked_index", tag)
        r.delete(queue)
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
def test_a_run_whose_worker_is_killed_ends_failed_and_leaves_no_keys(
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
        killed_at = time.monotonic()

        # The sweeper (a pass every few seconds) notices the lease ran out and fails it.
        while time.monotonic() - killed_at < 20:
            sweep_once()
            page = client.get(run.get_absolute_url(), HTTP_HX_REQUEST="true")
            run.refresh_from_db()
            if run.status != "running":
                break
            time.sleep(0.5)
        assert run.status == "failed", f"still {run.status} {time.monotonic() - killed_at:.0f} s on"
        assert page.status_code == 286
        assert "stopped before it finished" in page.content.decode()
        assert time.monotonic() - killed_at < 3 + 10
        assert experiment_keys(run.pk) == []
    finally:
        stop_worker(proc)
        forget_unacked(queue)
        forget_queue(queue)
