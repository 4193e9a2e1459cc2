"""Lesson 12 on a real queue: the certificate burst, fixed workers vs workers scaled on backlog.

The lesson's arrivals are played into two real queues side by side, time-scaled: one lesson
second lasts `lesson_second_s` of wall time and each worker does `per_worker` jobs per
lesson second. One pool has a fixed size; the other is resized at the start of every lesson
second by a controller that reads the real queue's backlog and applies the lesson's rule
(one worker per `per_waiting` waiting, within [min, max]) - the same `per_backlog` rule the
simulation `labs.sim.drain` uses, whose rows are returned alongside for one chart.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.harness import finish
from labs.experiments.limits import MAX_MESSAGES, MAX_WORKERS, check_float, check_int
from labs.experiments.metrics import Sampler
from labs.experiments.queue import QueueStats, RedisQueue
from labs.experiments.workers import WorkerPool
from labs.sim.drain import drain, drain_summary, fixed, per_backlog

LESSON_12_ARRIVALS = (50, 800, 800, 800, 200, 50, 50, 50, 50, 50)
MAX_SECONDS = 60
MAX_BURST_WALL_S = 50.0
MAX_WORKER_RATE_PER_S = 5000.0
POLICIES = ("fixed", "scaled")


def burst(
    arrivals: Sequence[int] = LESSON_12_ARRIVALS,
    per_worker: int = 100,
    *,
    fixed_workers: int = 3,
    per_waiting: int = 100,
    min_workers: int = 1,
    max_workers: int = 10,
    lesson_second_s: float = 0.2,
    extra_seconds: int = 2,
    batch: int = 20,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Play `arrivals` (jobs per lesson second) into a fixed pool and a backlog-scaled pool.

    Bounds: 1..60 seconds of arrivals, each 0..5000 and sum(arrivals) <= 20000;
    per_worker 1..10000 with per_worker / lesson_second_s <= 5000 jobs/s of wall time;
    lesson_second_s 0.05..5 with (len(arrivals) + extra_seconds) * lesson_second_s <= 50 s;
    fixed_workers 0..32; per_waiting >= 1; 0 <= min_workers <= max_workers <= 32.
    `extra_seconds` quiet seconds follow the arrivals so the drain shows. Nothing here is
    random; `seed` is recorded for a uniform signature.
    """
    arrivals = list(arrivals)
    check_int("len(arrivals)", len(arrivals), 1, MAX_SECONDS)
    for second, arrived in enumerate(arrivals):
        check_int(f"arrivals[{second}]", arrived, 0, 5000)
    check_int("sum(arrivals)", sum(arrivals), 0, MAX_MESSAGES)
    check_int("per_worker", per_worker, 1, 10_000)
    check_float("lesson_second_s", lesson_second_s, 0.05, 5.0)
    check_float(
        "per_worker / lesson_second_s", per_worker / lesson_second_s, 0, MAX_WORKER_RATE_PER_S
    )
    check_int("extra_seconds", extra_seconds, 0, 30)
    seconds = len(arrivals) + extra_seconds
    check_float(
        "(len(arrivals) + extra_seconds) * lesson_second_s",
        seconds * lesson_second_s,
        0,
        MAX_BURST_WALL_S,
    )
    check_int("fixed_workers", fixed_workers, 0, MAX_WORKERS)
    check_int("per_waiting", per_waiting, 1, 1_000_000)
    check_int("max_workers", max_workers, 0, MAX_WORKERS)
    check_int("min_workers", min_workers, 0, max_workers)
    check_int("batch", batch, 1, 200)
    interval_s = context.interval_s(max(0.02, lesson_second_s / 4))

    played = arrivals + [0] * extra_seconds
    rules = {
        "fixed": fixed(fixed_workers),
        "scaled": per_backlog(per_waiting, min_workers, max_workers),
    }
    rate_per_s = per_worker / lesson_second_s

    with context.run(seed) as run:
        queues = {
            p: RedisQueue(run.redis, run.ns.child(p), visibility_timeout_s=30.0) for p in POLICIES
        }
        pools = {
            p: run.own(
                WorkerPool(
                    queues[p],
                    workers=rules[p](0),
                    batch=batch,
                    rate_per_worker=rate_per_s,
                    # Capacity is per lesson second, as in the model: a worker delayed by a
                    # busy CPU may make up that time within a quarter of a lesson second.
                    pace_slack_s=lesson_second_s / 4,
                    url=context.redis_url,
                    name=f"{p}-w",
                )
            )
            for p in POLICIES
        }
        start = time.monotonic()

        def read() -> dict[str, Any]:
            sample: dict[str, Any] = {
                "second": round((time.monotonic() - start) / lesson_second_s, 3)
            }
            for p in POLICIES:
                s = queues[p].stats()
                age = s.oldest_age_s
                sample |= {
                    f"backlog_{p}": s.backlog,
                    f"visible_{p}": s.visible,
                    f"in_flight_{p}": s.in_flight,
                    f"done_{p}": s.done,
                    f"workers_{p}": pools[p].active_workers,
                    f"oldest_age_s_{p}": age,
                    f"oldest_age_lesson_s_{p}": None
                    if age is None
                    else round(age / lesson_second_s, 3),
                }
            return sample

        sampler = run.own(Sampler(read, interval_s=interval_s, on_sample=context.on_sample))
        for pool in pools.values():
            pool.start()
        sampler.start(t0=start)

        rows: list[dict[str, Any]] = []
        workers_now = {p: rules[p](0) for p in POLICIES}
        done_before = {p: 0 for p in POLICIES}
        for second in range(seconds + 1):
            if not run.wait(start + second * lesson_second_s - time.monotonic(), step_s=0.005):
                break
            stats = {p: queues[p].stats() for p in POLICIES}
            if second > 0:
                rows.append(_row(second - 1, played, workers_now, stats, done_before))
                done_before = {p: stats[p].done for p in POLICIES}
            if second == seconds:
                break
            for p in POLICIES:
                # The controller sees the backlog left at the end of the last second, before
                # this second's arrivals, as the lesson's autoscaler does.
                workers_now[p] = rules[p](stats[p].backlog)
                pools[p].resize(workers_now[p])
            for p in POLICIES:
                queues[p].send_many(
                    (f"cert-{second}-{i}", f"certificate {second}/{i}")
                    for i in range(played[second])
                )
        for pool in pools.values():
            pool.stop()
        sampler.stop()

        sim = {p: drain(played, per_worker, rules[p]) for p in POLICIES}
        for row in rows:
            for p in POLICIES:
                sim_row = sim[p][row["second"]]
                row[f"sim_workers_{p}"] = sim_row.workers
                row[f"sim_backlog_{p}"] = sim_row.backlog
        summary = _summary(rows, sim, sampler.samples, arrivals, lesson_second_s)
        summary |= {
            "per_worker": per_worker,
            "lesson_second_s": lesson_second_s,
            "worker_rate_per_s": round(rate_per_s, 3),
            "fixed_workers": fixed_workers,
            "per_waiting": per_waiting,
            "min_workers": min_workers,
            "max_workers": max_workers,
            "messages_per_queue": sum(arrivals),
        } | run.footer()
        keys = ["t_s", "second"] + [
            f"{m}_{p}"
            for p in POLICIES
            for m in (
                "backlog",
                "visible",
                "in_flight",
                "workers",
                "oldest_age_lesson_s",
                "oldest_age_s",
            )
        ]
        result = {
            "summary": summary,
            "series": sampler.series(keys),
            "tables": {"per_second": rows},
        }
    return finish(run, result)


def _row(
    second: int,
    played: list[int],
    workers: dict[str, int],
    stats: dict[str, QueueStats],
    done_before: dict[str, int],
) -> dict[str, Any]:
    """The lesson's per-second line for both queues: arrived, workers, done, waiting."""
    row: dict[str, Any] = {"second": second, "arrived": played[second]}
    for p in POLICIES:
        row[f"workers_{p}"] = workers[p]
        row[f"done_{p}"] = stats[p].done - done_before[p]
        row[f"backlog_{p}"] = stats[p].backlog
    return row


def _summary(
    rows: list[dict[str, Any]],
    sim: dict[str, Any],
    samples: list[dict[str, Any]],
    arrivals: list[int],
    lesson_second_s: float,
) -> dict[str, Any]:
    """Peak backlog, most workers and what is left when the arrivals end, real and simulated."""
    summary: dict[str, Any] = {}
    end = len(arrivals) - 1
    for p in POLICIES:
        backlogs = [r[f"backlog_{p}"] for r in rows]
        ages = [s[f"oldest_age_s_{p}"] or 0.0 for s in samples]
        sim_sum = drain_summary(sim[p][: len(arrivals)])
        summary |= {
            f"peak_backlog_{p}": max(backlogs, default=0),
            f"most_workers_{p}": max((r[f"workers_{p}"] for r in rows), default=0),
            f"left_at_end_{p}": rows[end][f"backlog_{p}"] if len(rows) > end else None,
            f"peak_backlog_sampled_{p}": max((s[f"backlog_{p}"] for s in samples), default=0),
            f"oldest_age_max_lesson_s_{p}": round(max(ages, default=0.0) / lesson_second_s, 3),
            f"done_{p}": samples[-1][f"done_{p}"] if samples else 0,
            f"sim_peak_backlog_{p}": sim_sum["peak_backlog"],
            f"sim_most_workers_{p}": sim_sum["most_workers"],
            f"sim_left_at_end_{p}": sim_sum["left_at_end"],
        }
    return summary
