"""The eight kinds of fault of the attack review (7 Dec 2026), as the bench applies them.

Each `act` does what the review did to the site, to the bench's own Redis and PostgreSQL
and to `./dev run`'s own processes only, and returns the moment the fault began and the
moment it was repaired (the service started again; for a killed process, the kill: the
supervisor or the worker pool does the rest). `expected` names the 5xx that tell the truth
while it lasts: a 503 saying the lab runners' Redis is down while it is, a 500 page while
the database is stopped. Any other 5xx, or one after the site is back, is not intended.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis as redis_lib
from fault_load import Load, form, run_status, statuses

FILLER_DB = 9  # the filler's keys: none of the site's databases (0-2)
FILLER_VALUE_BYTES = 256 * 1024


@dataclass
class Window:
    applied: float  # time.monotonic() when the fault began
    repaired: float  # ... when what was stopped was started again (a kill: the kill)
    notes: list[str] = field(default_factory=list)
    watched: list[str] = field(default_factory=list)  # runs whose end the report describes


@dataclass(frozen=True)
class Fault:
    key: str
    title: str
    act: Callable[[Load], Window]
    canary: str = "quick"  # the kind of run pressed to time "a new run works again"
    expected: frozenset[tuple[str, int]] = frozenset()  # (request kind, status) while down


def wait_running(run_ids: list[str], give_up_s: float = 60) -> None:
    deadline = time.monotonic() + give_up_s
    while time.monotonic() < deadline:
        found = statuses(run_ids)
        if found and all(s == "running" for s in found.values()):
            return
        time.sleep(0.2)
    raise SystemExit(f"runs {run_ids} were not all running within {give_up_s:.0f} s")


def spread(load: Load, kind: str, times: int, every_s: float) -> None:
    """Each presser presses `kind` `times` times, `every_s` apart (threads, not waited)."""

    def presses(client) -> None:
        for _ in range(times):
            if load.stopping.wait(every_s):
                return
            load.press(client, kind)

    for client in load.pressers:
        load.in_background(lambda client=client: presses(client))


# Redis -------------------------------------------------------------------------------------


def redis_stop(load: Load) -> Window:
    """`SHUTDOWN NOSAVE` for 10 s while 5 students have 10 runs going and press 10 more."""
    p = load.pressers
    kinds = ["mid", "mid", "fanout", "fanout", "fanout"]
    plan = [(p[i], kinds[i]) for i in range(5)] + [(p[i], "quick") for i in range(5)]
    ids = load.press_together(plan)
    wait_running([i for i in ids[:2] if i])  # the two 40 s experiments under way
    time.sleep(3)
    applied = time.monotonic()
    load.lab.redis.shutdown_nosave()
    spread(load, "quick", times=2, every_s=3.5)
    time.sleep(max(0.0, applied + 10 - time.monotonic()))
    load.lab.redis.start()
    going = [i for i in ids if i]
    return Window(applied, time.monotonic(), [f"{len(going)} of 10 runs going"], watched=going)


def fill(load: Load, ttl_s: int | None) -> str:
    """Fill the bench's Redis to its maxmemory with 256 KB values, with a TTL or none."""
    client = load.lab.redis.client(FILLER_DB)
    value = os.urandom(FILLER_VALUE_BYTES)
    evicted = client.info("stats")["evicted_keys"]
    limit = client.info("memory")["maxmemory"]
    written = 0
    while written * FILLER_VALUE_BYTES < 4 * limit:
        try:
            client.set(f"filler:{written}", value, ex=ttl_s)
        except redis_lib.ResponseError:  # OOM: nothing left that may be evicted
            break
        written += 1
        if ttl_s and client.info("stats")["evicted_keys"] > evicted + 20:
            break  # full: each new key now evicts one
    memory = client.info("memory")
    evicted_now = client.info("stats")["evicted_keys"] - evicted
    ttl = f"TTL {ttl_s} s" if ttl_s else "no TTL"
    return (
        f"filled with {written} keys of 256 KB ({ttl}): {memory['used_memory'] / 2**20:.0f} "
        f"of {limit / 2**20:.0f} MB, {evicted_now} keys evicted"
    )


def free(load: Load) -> None:
    load.lab.redis.client(FILLER_DB).flushdb()


def experiment_keys(load: Load) -> int:
    return int(load.lab.redis.client(1).dbsize())


def refused_as_full(load: Load) -> int:
    """Commands Redis has refused with OOM so far (its `errorstats`)."""
    stats = load.lab.redis.client().info("errorstats")
    return int(stats.get("errorstat_OOM", {}).get("count", 0))


def redis_full(ttl_s: int | None) -> Callable[[Load], Window]:
    """Redis full of keys with a TTL of `ttl_s` (or none) while the class runs labs."""

    def act(load: Load) -> Window:
        notes = []
        kept = load.press(load.pressers[4], "poison")[1]  # its dead letters are kept (4 h)
        if kept:
            notes.append(f"a poison-live run keeping its DLQ: {run_status(kept, 60)}")
        before = experiment_keys(load)
        applied = time.monotonic()
        notes.append(fill(load, ttl_s))
        refused = refused_as_full(load)
        p = load.pressers
        load.press_together([(c, "quick") for c in p] + [(c, "fanout") for c in p])
        time.sleep(10)
        load.press_together([(c, "quick") for c in p])
        time.sleep(10)
        notes.append(f"experiment keys (live runs, kept DLQs): {before} → {experiment_keys(load)}")
        notes.append(
            f"the site's commands Redis refused as full: {refused_as_full(load) - refused}"
        )
        free(load)
        return Window(applied, time.monotonic(), notes)

    return act


def redis_full_drafts(load: Load) -> Window:
    """Redis full of 1 h keys, then 4 students move sliders for 40 s (and 5 press Run)."""
    applied = time.monotonic()
    notes = [fill(load, 3600)]
    refused_before = refused_as_full(load)
    posted: list[int] = []
    end = time.monotonic() + 40

    def drag(client) -> None:
        while time.monotonic() < end:
            lab, data = form("draft")
            posted.append(client.draft(lab, data))

    threads = [threading.Thread(target=drag, args=(c,)) for c in load.drafters]
    for thread in threads:
        thread.start()
    spread(load, "quick", times=7, every_s=5)
    for thread in threads:
        thread.join()
    refused = sum(s >= 500 for s in posted)
    notes.append(f"{len(posted)} drafts posted, {refused} answered 5xx")
    notes.append(
        f"the site's commands Redis refused as full: {refused_as_full(load) - refused_before}"
    )
    free(load)
    return Window(applied, time.monotonic(), notes)


# PostgreSQL --------------------------------------------------------------------------------


def postgres_stop(load: Load) -> Window:
    """PostgreSQL stopped for 30 s with 8 runs going and the writers writing."""
    p = load.pressers
    plan = [(p[0], "mid"), (p[0], "fanout"), (p[1], "mid"), (p[1], "fanout"),
            (p[2], "fanout"), (p[2], "quick"), (p[3], "quick"), (p[3], "quick")]  # fmt: skip
    ids = load.press_together(plan)
    wait_running([i for i in ids[:3:2] if i])
    time.sleep(3)
    applied = time.monotonic()
    load.lab.postgres.stop()
    time.sleep(30)
    load.lab.postgres.start()
    going = [i for i in ids if i]
    return Window(applied, time.monotonic(), [f"{len(going)} of 8 runs going"], watched=going)


# Processes ---------------------------------------------------------------------------------


def _kill(pid: int, what: str) -> str:
    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    os.kill(pid, signal.SIGKILL)
    return f"SIGKILL to {what} (pid {pid}: {command[:60]}…)"


def _pool_process(run_id: str) -> int:
    """The heavy pool's process running `run_id` (Celery's `inspect active`)."""
    from school.celery import app

    for tasks in (app.control.inspect(timeout=3).active() or {}).values():
        for task in tasks:
            if run_id in task.get("args", []):
                return int(task["worker_pid"])
    raise SystemExit(f"no worker says it is running {run_id}")


def heavy_kill(main: bool) -> Callable[[Load], Window]:
    """SIGKILL to the heavy worker's pool process running an 80 s experiment, or to its
    main process (the supervisor starts it again)."""

    def act(load: Load) -> Window:
        run_id = load.press(load.pressers[0], "long")[1]
        if run_id is None:
            raise SystemExit("the long experiment was refused")
        wait_running([run_id])
        time.sleep(8)
        if main:
            note = _kill(load.lab.pid("heavy"), "the heavy worker's main process")
        else:
            note = _kill(_pool_process(run_id), "the heavy pool's process running it")
        now = time.monotonic()
        return Window(now, now, [note], watched=[run_id])

    return act


def quick_main_kill(load: Load) -> Window:
    """SIGKILL to the quick worker's main process once 16 quick runs are pressed and the
    first of them is running (the rest queued behind it)."""
    pid = load.lab.pid("quick-1")
    owners = [load.user_ids[c.username] for c in load.pressers[:4]]
    notes: list[str] = []
    killed_at: list[float] = []
    pressed = threading.Event()

    def kill_once_running() -> None:
        from django.db import connections

        pressed.wait()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not killed_at:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT count(*) FROM labs_run WHERE status = 'running'"
                               " AND owner_id = ANY(%s)", [owners])  # fmt: skip
                if cursor.fetchone()[0]:
                    notes.append(_kill(pid, "the quick worker"))
                    killed_at.append(time.monotonic())
            time.sleep(0.02)
        connections.close_all()

    killer = threading.Thread(target=kill_once_running)
    killer.start()
    plan = [(c, "quick") for c in load.pressers[:4] for _ in range(4)]
    pressed.set()
    ids = load.press_together(plan)
    killer.join()
    if not killed_at:
        raise SystemExit("no quick run was seen running: the quick worker was not killed")
    found = statuses([i for i in ids if i])
    waiting = sum(s in ("queued", "running") for s in found.values())
    notes.append(f"{len(found)} of 16 quick runs started, {waiting} still waiting once pressed")
    return Window(killed_at[0], killed_at[0], notes)


def web_master_kill(load: Load) -> Window:
    """SIGKILL to gunicorn's master while the class presses Run and writes."""
    load.press_together([(c, "quick") for c in load.pressers])
    spread(load, "quick", times=10, every_s=1)
    time.sleep(1)
    note = _kill(load.lab.pid("web"), "gunicorn's master")
    now = time.monotonic()
    return Window(now, now, [note])


REDIS_DOWN = frozenset({("run", 503), ("draft", 503), ("hand-in", 503), ("deep", 503)})
ALL_KINDS = ("run", "draft", "label", "hand-in", "login", "deep", "page")

FAULTS = (
    Fault("redis-stop", "Redis `SHUTDOWN NOSAVE` 10 s, 20 runs of 5 students", redis_stop,
          expected=REDIS_DOWN),
    Fault("heavy-child", "Heavy worker's pool process SIGKILL (80 s experiment)",
          heavy_kill(main=False), canary="fanout"),
    Fault("heavy-main", "Heavy worker's main process SIGKILL (80 s experiment)",
          heavy_kill(main=True), canary="fanout"),
    Fault("quick-main", "Quick worker's main process SIGKILL, 16 quick runs", quick_main_kill,
          expected=frozenset({("run", 503), ("deep", 503)})),
    Fault("postgres-stop", "PostgreSQL stopped 30 s, 8 runs + 5 writers", postgres_stop,
          expected=frozenset((k, s) for k in ALL_KINDS for s in (500, 503))),
    Fault("web-master", "gunicorn master SIGKILL", web_master_kill,
          expected=frozenset((k, 502) for k in ALL_KINDS)),
    Fault("redis-full-day", "Redis full, 1-day-TTL filler", redis_full(86400)),
    Fault("redis-full-nottl", "Redis full, no-TTL filler", redis_full(None)),
    Fault("redis-full-drafts", "Redis full of 1 h data + a draft flood", redis_full_drafts),
)  # fmt: skip
