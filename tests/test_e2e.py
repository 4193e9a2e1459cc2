"""End to end: a student presses Run, a real Celery worker on the real Redis runs it.

No eager mode: the worker is a separate process started here, listening on a queue of
its own, and it reads and writes the same test database the test client uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

from labs.models import Run
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


@pytest.fixture
def worker(tmp_path, settings):
    """A real Celery worker on a queue no other worker listens to."""
    queue = f"e2e-{uuid.uuid4().hex[:8]}"
    settings.LAB_QUEUE = queue
    log = tmp_path / "worker.log"
    env = {**os.environ, "DATABASE_URL": database_url(), "LAB_QUEUE": queue}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queue,
             "--concurrency=1", "--loglevel=INFO", "-n", f"{queue}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    yield proc, log
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


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
