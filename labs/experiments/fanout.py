"""Lesson 07 on a real queue: N jobs, W workers at R jobs a second each, and a worker that dies.

The lesson's arithmetic says the work takes N / (W x R) seconds. Here the jobs really go
through Redis to worker threads that call a stand-in SMS provider taking 1/R seconds a
call, so the measured time can be set beside the formula. Some workers die after sending an
SMS but before acknowledging it: the job comes back after the visibility timeout and is
delivered twice, and the idempotent consumer still sends it once.
"""

from __future__ import annotations

import random
import time
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.effects import Effects
from labs.experiments.faults import CRASH_POINTS, CrashPlan, StandInService
from labs.experiments.harness import finish
from labs.experiments.limits import MAX_WORKERS, check_float, check_int
from labs.experiments.metrics import Sampler, queue_reader
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.workers import Handle, WorkerContext, WorkerPool

MAX_JOBS = 5000
MAX_FORMULA_S = 40.0
MAX_CRASHES = 10


def fanout(
    jobs: int = 200,
    workers: int = 4,
    rate_per_worker: float = 20.0,
    *,
    crashes: int = 1,
    crash_point: str = "after_effect",
    visibility_timeout_s: float = 1.0,
    idempotent: bool = True,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Send `jobs` SMS jobs through a real queue to `workers` threads; time it against the formula.

    Bounds: jobs 1..5000, workers 1..32, rate_per_worker 0.5..500 jobs/s,
    jobs / (workers * rate_per_worker) <= 40 s, crashes 0..10 (and <= jobs),
    visibility_timeout_s 0.05..10. `crashes` deliveries, drawn from `seed`, kill their worker
    at `crash_point` ("after_effect": SMS sent, not acked; "after_receive": nothing done);
    a replacement worker starts at once, as a supervisor would start one.
    """
    check_int("jobs", jobs, 1, MAX_JOBS)
    check_int("workers", workers, 1, MAX_WORKERS)
    check_float("rate_per_worker", rate_per_worker, 0.5, 500.0)
    formula_s = jobs / (workers * rate_per_worker)
    if formula_s > MAX_FORMULA_S:
        raise ValueError(
            f"jobs / (workers * rate_per_worker) must be <= {MAX_FORMULA_S} s, got {formula_s:.1f}"
        )
    check_int("crashes", crashes, 0, min(MAX_CRASHES, jobs))
    if crash_point not in CRASH_POINTS:
        raise ValueError(f"crash_point must be one of {CRASH_POINTS}, got {crash_point!r}")
    check_float("visibility_timeout_s", visibility_timeout_s, 0.05, 10.0)

    rng = random.Random(seed)
    plan = CrashPlan.random(rng, jobs, crashes, crash_point)
    provider = StandInService(latency_s=1.0 / rate_per_worker, seed=seed)

    with context.run(seed) as run:
        queue = RedisQueue(
            run.redis, run.ns, visibility_timeout_s=visibility_timeout_s, max_receives=10
        )
        effects = Effects(run.redis, run.ns, kind="sms_sent", idempotent=idempotent)

        def make_handler(ctx: WorkerContext) -> Handle:
            sent = effects.with_client(ctx.r)

            def handle(message: Message) -> None:
                provider.call(message.msg_id)
                sent.apply(message.msg_id)

            return handle

        pool = run.own(
            WorkerPool(queue, make_handler, workers=workers, crash_plan=plan, url=context.redis_url)
        )
        # The request's whole job: one write that fans out into N jobs, then answer.
        queue.send_many((f"sms-{i}", f"notice 42 -> parent {i}") for i in range(jobs))
        read = queue_reader(queue, effects)
        start = time.monotonic()

        def read_with_formula() -> dict[str, Any]:
            t_s = time.monotonic() - start
            return read() | {"expected_done": min(jobs, int(workers * rate_per_worker * t_s))}

        sampler = run.own(
            Sampler(
                read_with_formula, interval_s=context.interval_s(0.1), on_sample=context.on_sample
            )
        )
        sampler.start(t0=start)
        pool.start()
        ended = run.settle(queue, jobs, pool, sampler, keep=context.keep_dlq, step_s=0.01)
        measured_s = ended - start

        stats = queue.stats()
        totals = effects.totals()
        counts = effects.counts()
        crashed = _crashed_jobs(pool, counts)
        summary = {
            "jobs": jobs,
            "workers": workers,
            "rate_per_worker": rate_per_worker,
            "formula_s": round(formula_s, 3),
            "measured_s": round(measured_s, 3),
            "measured_over_formula": round(measured_s / formula_s, 3),
            "done": stats.done,
            "lost": jobs - stats.settled,
            "deliveries": stats.receives,
            "duplicates_delivered": stats.duplicates_delivered,
            "sms_sent": totals["effects"],
            "duplicate_effects": totals["duplicate_effects"],
            "crashes": pool.crashes,
            "crash_point": crash_point,
            "idempotent": idempotent,
            "visibility_timeout_s": visibility_timeout_s,
        } | run.footer()
        result = {
            "summary": summary,
            "series": sampler.series(
                [
                    "t_s",
                    "expected_done",
                    "done",
                    "visible",
                    "in_flight",
                    "oldest_age_s",
                    "drain_estimate_s",
                    "duplicates_delivered",
                    "duplicate_effects",
                ]
            ),
            "tables": {"crashed_jobs": crashed, "pool": pool.counters()},
        }
    return finish(run, result)


def _crashed_jobs(pool: WorkerPool, counts: dict[str, int]) -> list[dict[str, Any]]:
    """For each job whose worker died: every delivery of it, and how often its SMS went out."""
    by_id: dict[str, list[dict[str, Any]]] = {}
    for d in pool.deliveries:
        by_id.setdefault(d.msg_id, []).append(
            {
                "t_s": round(d.t_s, 3),
                "worker": d.consumer,
                "receives": d.receives,
                "ms": d.received_ms,
            }
        )
    rows = []
    for msg_id in dict.fromkeys(pool.crashed_msg_ids):
        seen = by_id.get(msg_id, [])
        rows.append(
            {
                "id": msg_id,
                "deliveries": len(seen),
                "sms_sent": counts.get(msg_id, 0),
                "redelivered_after_s": (
                    round((seen[1]["ms"] - seen[0]["ms"]) / 1000, 3) if len(seen) > 1 else None
                ),
                "delivered": [{k: v for k, v in s.items() if k != "ms"} for s in seen],
            }
        )
    return rows
