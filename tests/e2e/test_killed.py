"""A run whose worker is killed mid-run is sent again and finished by another worker within
seconds: whether the worker's main process is killed (its delivery would otherwise sit in
the broker's `unacked` hash for the 300 s visibility timeout) or only its pool child (the
main process hands the task back itself). Real Redis, two real worker processes, a short
lease (`LAB_LEASE_S=2`, in the workers' environment and the test's settings)."""

from __future__ import annotations

import os
import signal
import socket
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


def press_drain(client, user, **changes: str) -> Run:
    from tests.labs.web.test_views import GOOD

    client.force_login(user)
    response = client.post(
        reverse("lab-detail", args=["drain"]), {**GOOD, **changes}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    return Run.objects.filter(owner=user).latest("created_at")


def start_stalled(queue: str, log: Path, logs: list[Path], name: str = ""):
    """A worker whose one pool process is stopped: it takes a message and never claims it."""
    proc = spawn_worker(queue, log, name=name)
    wait_until(lambda: " ready." in log.read_text(), f"{log.name} ready", logs)
    os.kill(pool_child(proc.pid), signal.SIGSTOP)
    return proc


def taken(run: Run) -> bool:
    """The run's message is in kombu's `unacked` (a worker took it), not in its list."""
    return str(run.pk) in lost.deliveries() and str(run.pk) not in lost.ids_in_lists({run.queue})


def kill(proc) -> float:
    os.killpg(proc.pid, signal.SIGKILL)  # the worker and its stopped pool process
    proc.wait()
    return time.time()


def a_moment_later():
    """Past the grace a fresh publish gets (`lost.GRACE_S`)."""
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() + timedelta(seconds=lost.GRACE_S + 1)


@pytest.fixture
def own_queue(settings):
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue = new_queue_name("orphan")
    procs: list = []
    yield queue, procs
    for proc in procs:
        if proc.poll() is None:
            kill(proc)  # a stopped pool process would hold a warm shutdown
    forget_queue(queue)


def finishes(run: Run, logs: list[Path]) -> Run:
    def ended() -> bool:
        run.refresh_from_db()
        return run.status in {"succeeded", "failed"}

    wait_until(ended, f"run {run.pk} finishing", logs)
    return run


def test_a_run_whose_worker_is_killed_before_its_claim_is_sent_again_at_once(
    client, own_queue, tmp_path
):
    """The fault bench's finding 3: a worker takes a message (kombu's `unacked`) before its
    pool process claims the run; killed in between, it left the run "queued" with no lease
    and its message counted as delivered, to fail 300 s later ("no runner picked this run
    up"). Its pool process is stopped here, so the message is surely taken and never
    claimed; the worker that replaces it (same name, as a supervisor's restart) started
    after the take, and the next sweep sends the run again."""
    from labs.runs import telemetry_store

    queue, procs = own_queue
    logs = [tmp_path / "killed.log", tmp_path / "restarted.log"]
    procs.append(start_stalled(queue, logs[0], logs))
    run = press_drain(client, make_user("alice"))
    wait_until(lambda: taken(run), "the first worker taking the run's message", logs)
    killed_at = kill(procs[0])
    run.refresh_from_db()
    assert run.status == "queued" and run.attempts == 0
    later = a_moment_later()
    assert lost.resend_lost(later) == (0, 0)  # its message is in `unacked`: not lost

    procs.append(spawn_worker(queue, logs[1]))
    name = f"{queue}@{socket.gethostname()}"

    def restarted() -> bool:
        found = {w.name: w for w in telemetry_store.live_workers(queue)}
        return name in found and (found[name].started or 0) > killed_at

    wait_until(restarted, "the new worker saying when it started", logs)
    report = sweep_once(now=later)
    run.refresh_from_db()
    assert run.resent_at is not None, f"not sent again: {report}"
    assert report.orphaned == 1

    assert finishes(run, logs).status == "succeeded", run.error
    assert run.attempts == 1  # claimed once: the dead delivery never ran
    wait_until(
        lambda: str(run.pk) not in lost.ids_in_messages({queue}),
        "no delivery of the run left behind",
        logs,
        timeout_s=20,
    )


def test_with_two_workers_a_run_the_killed_one_took_is_sent_again_and_the_others_kept(
    client, own_queue, tmp_path
):
    """Several workers on a queue: the one left alive started before the dead one took its
    message, so its start says nothing; the list of deliveries it holds, in its beats,
    says the message is not its. Its own message, taken and not yet claimed, is left to it."""
    from labs.runs import telemetry_store

    queue, procs = own_queue
    logs = [tmp_path / "older.log", tmp_path / "killed.log", tmp_path / "third.log"]
    # The older worker takes a message first and holds it (its one process stopped), so
    # it takes nothing more (acks late, one message per process).
    procs.append(start_stalled(queue, logs[0], logs, name=f"{queue}-older"))
    kept = press_drain(client, make_user("alice"))
    wait_until(lambda: taken(kept), "the older worker taking a message", logs)
    procs.append(start_stalled(queue, logs[1], logs, name=f"{queue}-killed"))
    # Not the same values: an identical run would wait on the first, with no message.
    orphan = press_drain(client, make_user("bob"), fixed_workers="4")
    wait_until(lambda: taken(orphan), "the second worker taking the next", logs)
    killed_at = kill(procs[1])
    later = a_moment_later()
    older = f"{queue}-older@{socket.gethostname()}"

    def listed_since_the_take() -> bool:
        found = [w for w in telemetry_store.live_workers(queue) if w.name == older]
        return bool(found) and (found[0].holds_at or 0) > killed_at + 3

    wait_until(listed_since_the_take, "the older worker listing what it holds", logs)
    report = sweep_once(now=later)
    orphan.refresh_from_db()
    kept.refresh_from_db()
    assert orphan.resent_at is not None, f"not sent again: {report}"
    assert (report.orphaned, kept.resent_at) == (1, None)

    # A third worker takes the run sent again; the older one's own run is still in hand.
    procs.append(spawn_worker(queue, logs[2], name=f"{queue}-third"))
    assert finishes(orphan, logs).status == "succeeded", orphan.error
    kept.refresh_from_db()
    assert kept.status == "queued" and kept.resent_at is None
