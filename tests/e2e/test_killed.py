"""A run whose worker is killed mid-run is sent again and finished by another worker within
seconds: whether the worker's main process is killed (its delivery would otherwise sit in
the broker's `unacked` hash for the 300 s visibility timeout) or only its pool child (the
main process hands the task back itself). Real Redis, two real worker processes, a short
lease (`LAB_LEASE_S=2`, in the workers' environment and the test's settings)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from django.urls import reverse

from labs.runs import lost
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from tests.base import make_user
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

# A real-queue experiment of about 5 s (100 jobs, one worker thread at 20 a second).
SHORT_FANOUT = {"jobs": "100", "workers": "1", "rate_per_worker": "20", "crashes": "0",
                "crash_point": "after_effect", "visibility_timeout_s": "0.5",
                "idempotent": "on", "seed": "1"}  # fmt: skip


def wait_until(check, what: str, logs: list[Path], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            tails = "\n".join(f"--- {log.name}\n{log.read_text()[-2000:]}" for log in logs)
            pytest.fail(f"{what} did not happen in {timeout_s:.0f} s\n{tails}")
        time.sleep(0.2)


def pool_child(pid: int) -> int:
    """The worker's one pool process (concurrency 1)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.fixture
def two_workers(tmp_path, settings):
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue = new_queue_name("killed")
    settings.LAB_LEASE_S = 2
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    procs = [spawn_worker(queue, log, LAB_LEASE_S="2") for log in logs]
    try:
        for log in logs:
            wait_until(lambda log=log: " ready." in log.read_text(), f"{log.name} ready", logs)
        yield list(zip(procs, logs, strict=True))
    finally:
        for proc in procs:
            stop_worker(proc)
        forget_queue(queue)


@pytest.mark.parametrize("kill", ["main process", "pool child"])
def test_a_run_whose_worker_is_killed_mid_run_is_finished_by_another(client, two_workers, kill):
    logs = [log for _proc, log in two_workers]
    alice = make_user("alice")
    client.force_login(alice)
    assert client.post(reverse("lab-detail", args=["fanout-live"]), SHORT_FANOUT).status_code == 302
    run = Run.objects.get(owner=alice)

    def going() -> bool:
        run.refresh_from_db()
        assert run.status in {"queued", "running"}, run.error
        return run.status == "running" and bool((run.progress or {}).get("samples"))

    wait_until(going, "the run getting going", logs)
    # The one message went to one worker (its log says it received it).
    holder = next(i for i, log in enumerate(logs) if "execute_run[" in log.read_text())
    proc, _log = two_workers[holder]
    other_log = logs[1 - holder]
    victim = proc.pid if kill == "main process" else pool_child(proc.pid)
    os.kill(victim, signal.SIGKILL)

    def finished() -> bool:
        sweep_once()  # the sweeper's pass, every LAB_SWEEP_EVERY_S in ./dev
        run.refresh_from_db()
        return run.status in {"succeeded", "failed"}

    wait_until(finished, "the run finishing", logs)
    assert run.status == "succeeded", run.error
    assert run.attempts == 2
    assert run.result["summary"]["done"] == 100
    if kill == "main process":
        # Its pool child died with it: the other worker finished the run. Celery writes
        # "succeeded in" after the task has returned (and saved the run), so it is waited for.
        wait_until(lambda: "succeeded in" in other_log.read_text(), "the other worker's log", logs)
    # Nothing of it is left for a delivery after the visibility timeout. A copy handed back
    # by the killed child's main process and the sweeper's may both have been queued: the
    # second is taken (and finds the run finished) within moments, not left behind.
    wait_until(
        lambda: str(run.pk) not in lost.ids_in_messages({run.queue}),
        "every message of the run being taken",
        logs,
        timeout_s=20,
    )
