"""Lesson 12's standard and FIFO queues side by side, on the real Redis.

The same messages go into both at once: a few students (message groups), each with updates
that must be applied in order; every few messages the producer resends one (its reply was
lost), and one update is poison. Worker threads take from each queue and spend a random
few tens of milliseconds per message. What comes out:

- the standard queue (`queue.RedisQueue`) hands a student's updates to several workers at
  once, so some finish before an earlier one; every resent copy is done twice; the poison
  message is retried while the rest of its student's updates go past it;
- the FIFO queue (`fifo_queue.FifoQueue`) keeps each student's order, drops the copies sent
  within the deduplication window, and holds the poison message's student (only that one)
  until the message reaches the DLQ after max_receives receives.

Times are the experiment's own (tens of milliseconds, a visibility timeout under a second)
so a run takes a few seconds; SQS's are minutes, the rules are the same.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.fifo_queue import FifoQueue
from labs.experiments.harness import ExperimentSession, finish
from labs.experiments.limits import check_float, check_int
from labs.experiments.metrics import Sampler
from labs.experiments.namespace import connect
from labs.experiments.queue import RedisQueue
from labs.sim.fifo import KINDS, Entry, Log, measure, plan, poison_job, work_s

# What the sampler reads, time first: the result's series, and what the lab shows live.
SERIES = (
    "t_s",
    "standard_done",
    "fifo_done",
    "standard_dlq",
    "fifo_dlq",
    "standard_waiting",
    "fifo_waiting",
    "fifo_blocked_groups",
)


def fifo_vs_standard(
    groups: int = 3,
    per_group: int = 6,
    workers: int = 3,
    *,
    resend_every: int = 4,
    resend_after_s: float = 0.05,
    dedup_window_s: float = 1.0,
    poison: bool = True,
    visibility_timeout_s: float = 0.3,
    max_receives: int = 3,
    work_ms: float = 40.0,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Send the same plan to a standard and a FIFO queue at once and log what the workers do.

    Bounds: groups 1..10, per_group 1..50, workers 1..8, resend_every 0 (never) ..50,
    resend_after_s 0..5, dedup_window_s 0.05..10, visibility_timeout_s 0.05..2,
    max_receives 1..10, work_ms 1..200 (each message takes 50% to 150% of it).
    """
    check_int("groups", groups, 1, 10)
    check_int("per_group", per_group, 1, 50)
    check_int("workers", workers, 1, 8)
    check_int("resend_every", resend_every, 0, 50)
    check_float("resend_after_s", resend_after_s, 0.0, 5.0)
    check_float("dedup_window_s", dedup_window_s, 0.05, 10.0)
    check_float("visibility_timeout_s", visibility_timeout_s, 0.05, 2.0)
    check_int("max_receives", max_receives, 1, 10)
    check_float("work_ms", work_ms, 1.0, 200.0)
    if poison and per_group < 2:
        raise ValueError("per_group must be >= 2 for the poison message (student 1's second)")

    timed = plan(groups, per_group, resend_every, poison, resend_after_s)
    sends = [entry for _, entry in timed]
    bad = poison_job(poison)
    logs = {kind: Log.empty() for kind in KINDS}
    lock = threading.Lock()

    with context.run(seed) as run:
        standard = RedisQueue(
            run.redis,
            run.ns.child("standard"),
            visibility_timeout_s=visibility_timeout_s,
            max_receives=max_receives,
        )
        fifo = FifoQueue(
            run.redis,
            run.ns.child("fifo"),
            visibility_timeout_s=visibility_timeout_s,
            max_receives=max_receives,
            dedup_window_s=dedup_window_s,
        )
        by_key = {(e.group, e.pos): e for e in sends}
        stop = threading.Event()

        def took(entry: Entry, receives: int) -> float:
            return work_s(seed, work_ms, entry, receives)

        def standard_worker(index: int) -> None:
            q = standard.with_client(connect(context.redis_url, name=f"{run.ns.prefix}s{index}"))
            while not stop.is_set():
                got = q.receive(f"s{index}")
                if not got:
                    time.sleep(0.005)
                    continue
                message = got[0]
                group, pos = message.body.split("|")
                entry = by_key[(group, int(pos))]
                _handle(run, logs["standard"], lock, entry, message.receives, bad, took)
                if entry.job == bad:
                    q.fail(message, "cannot apply this update")
                else:
                    q.ack(message)
            q.r.close()

        def fifo_worker(index: int) -> None:
            q = fifo.with_client(connect(context.redis_url, name=f"{run.ns.prefix}f{index}"))
            while not stop.is_set():
                message = q.receive()
                if message is None:
                    time.sleep(0.005)
                    continue
                entry = by_key[(message.group, int(message.body))]
                _handle(run, logs["fifo"], lock, entry, message.receives, bad, took)
                if entry.job != bad:
                    q.ack(message)
                # A failed FIFO message stays hidden for its visibility timeout, and its
                # group with it: nothing to report, as with SQS.
            q.r.close()

        def read() -> dict[str, Any]:
            s, f = standard.stats(), fifo.stats()
            with lock:
                return {
                    "standard_done": len(logs["standard"].done),
                    "fifo_done": len(logs["fifo"].done),
                    "standard_dlq": s.dlq_depth,
                    "fifo_dlq": f.dead,
                    "standard_waiting": s.visible,
                    "fifo_waiting": f.queued - f.in_flight,
                    "fifo_blocked_groups": f.in_flight,
                }

        sampler = run.own(
            Sampler(read, interval_s=context.interval_s(0.05), on_sample=context.on_sample)
        )
        threads = [
            threading.Thread(target=target, args=(i,), name=f"{kind}-{i}", daemon=True)
            for kind, target in (("standard", standard_worker), ("fifo", fifo_worker))
            for i in range(workers)
        ]
        sampler.start(t0=run.t0)
        for thread in threads:
            thread.start()
        dropped = _send_all(run, timed, standard, fifo)

        originals = {e.job for e in sends}
        parked = 1 if bad else 0

        def settled() -> bool:
            s, f = standard.stats(), fifo.stats()
            return (
                s.visible + s.in_flight == 0
                and s.dlq_depth >= parked
                and f.queued == 0
                and f.dead >= parked
            )

        run.wait_until(settled, run.max_wall_s)
        stop.set()
        for thread in threads:
            thread.join(5.0)
        sampler.stop()
        # The DLQs' times are Redis's clock; the site runs Redis on the workers' machine.
        for letter in standard.dead_letters():
            group, pos = letter.body.split("|")
            logs["standard"].parked_at[(group, int(pos))] = letter.dead_ms / 1000 - run.t0_wall
        for dead in fifo.dead_letters():
            logs["fifo"].parked_at[(dead.group, int(dead.body))] = dead.dead_ms / 1000 - run.t0_wall
        f_stats = fifo.stats()
        summary: dict[str, Any] = {
            "updates": len(originals),
            "copies_sent": sum(1 for e in sends if e.copy),
            "poison": poison,
            "fifo_deduplicated": f_stats.deduplicated,
        }
        tables: dict[str, Any] = {}
        for kind in KINDS:
            queued = [e for e in sends if kind == "standard" or e not in dropped]
            figures, group_rows, late = measure(logs[kind], queued, bad)
            summary |= {f"{kind}_{k}": v for k, v in figures.items()}
            tables[f"{kind}_groups"] = group_rows
            tables[f"{kind}_done"] = [
                {
                    "t_s": round(t, 3),
                    "group": e.group,
                    "pos": e.pos,
                    "job": e.job,
                    "copy": e.copy,
                    "out_of_order": flag,
                }
                for (t, e), flag in zip(logs[kind].done, late, strict=True)
            ]
        summary |= run.footer()
        result = {
            "summary": summary,
            "series": sampler.series(list(SERIES)),
            "tables": tables,
        }
    return finish(run, result)


def _handle(
    run: ExperimentSession,
    log: Log,
    lock: threading.Lock,
    entry: Entry,
    receives: int,
    bad: str | None,
    took: Callable[[Entry, int], float],
) -> None:
    """Do the work: log the receive, take the time, log the update as applied unless poison."""
    with lock:
        log.received.append((run.elapsed_s(), entry, receives))
    time.sleep(took(entry, receives))
    if entry.job != bad:
        with lock:
            log.done.append((run.elapsed_s(), entry))


def _send_all(
    run: ExperimentSession, timed: list[tuple[float, Entry]], standard: RedisQueue, fifo: FifoQueue
) -> set[Entry]:
    """The producer: each send at its time to both queues. Returns what FIFO dropped."""
    start = time.monotonic()
    dropped: set[Entry] = set()
    for at, entry in timed:
        while time.monotonic() - start < at:
            if run.stopped():
                return dropped
            time.sleep(0.002)
        standard.send(entry.job, f"{entry.group}|{entry.pos}")
        if fifo.send(entry.group, entry.job, str(entry.pos)) is None:
            dropped.add(entry)
    return dropped
