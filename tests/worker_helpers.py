"""A real Celery worker process for the tests that need one (tests/e2e/test_run.py, tests/browser/).

No eager mode: the worker is a separate process listening on a queue of its own, reading and
writing the same test database the test (or the live server) uses, through the real Redis.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The URL of the test database, for the worker process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def new_queue_name(prefix: str = "e2e") -> str:
    """A queue no other worker on the shared Redis listens to."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def spawn_worker(
    queue: str,
    log: Path,
    *,
    heavy: str | None = None,
    concurrency: int = 1,
    name: str = "",
    **env: str,
) -> subprocess.Popen:
    """A real Celery worker in a process group of its own (so a test can kill it and its
    pool child at once), writing to `log`: on `queue` for quick and heavy runs alike, or,
    given a `heavy` queue, on both (`-Q quick,heavy`): each kind of run on its own queue,
    as the site's quick and heavy workers take them. Named `<queue>@<host>` unless `name`
    (its part before the @) is given."""
    heavy = heavy or queue
    env = {**os.environ, "DATABASE_URL": database_url(), "LAB_QUEUE": queue,
           "LAB_HEAVY_QUEUE": heavy, **env}  # fmt: skip
    queues = queue if heavy == queue else f"{queue},{heavy}"
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queues,
             f"--concurrency={concurrency}", "--loglevel=INFO", "-n", f"{name or queue}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def wait_ready(proc: subprocess.Popen, log: Path, most_s: float = 180) -> None:
    """Wait until the worker says it is ready (it consumes its queues from then on), so a
    test's first runs are taken at once, not left queued while it starts (a slow start on a
    loaded machine); fail with its log if it ends or is not ready within `most_s`."""
    deadline = time.monotonic() + most_s
    while " ready." not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the Celery worker did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


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
    """Drop what the broker keeps for a test's own queue once its worker is gone: the task
    messages a killed worker left unacknowledged (or another worker on the shared Redis
    would restore them into a queue nobody reads), kombu's `_kombu.binding.<queue>` and
    `_kombu.binding_permanent.<queue>` sets and the queue's lists (one per priority), so
    test runs do not pile up keys."""
    import redis
    from django.conf import settings

    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        for tag, raw in r.hscan_iter("unacked"):
            if queue.encode() in raw:
                r.hdel("unacked", tag)
                r.zrem("unacked_index", tag)
        keys = [
            f"_kombu.binding.{queue}",
            f"_kombu.binding_permanent.{queue}",
            *r.scan_iter(match=f"{queue}*", count=1000),
        ]
        r.delete(*keys)
    finally:
        r.close()
