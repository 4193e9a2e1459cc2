"""Lesson 13's polite retries on a real queue: backoff with full jitter against a flaky service.

Each worker charges fees through a stand-in payments service that fails a call with
probability `fail_p`. A worker retries a failed call with tenacity, waiting a full-jitter
exponential backoff between tries, up to `attempts` tries. A message whose tries all fail is
given back to the queue; it returns after the visibility timeout, and after `max_receives`
receives it is parked. The fee is charged through the idempotent consumer, so however often
a payment is delivered or retried, it is charged once.

Which calls fail depends only on the seed and (payment, receive, attempt), not on thread
timing, so the counts repeat exactly under a seed.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.effects import Effects
from labs.experiments.faults import ServiceError, StandInService
from labs.experiments.harness import finish
from labs.experiments.limits import MAX_WORKERS, check_float, check_int
from labs.experiments.metrics import Sampler, queue_reader
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.retries import backoff_ceiling_s, retrying
from labs.experiments.workers import Handle, WorkerContext, WorkerPool
from labs.text import gettext_noop

MAX_FLAKY_MESSAGES = 2000


def flaky(
    messages: int = 200,
    workers: int = 4,
    fail_p: float = 0.5,
    attempts: int = 3,
    *,
    base_s: float = 0.01,
    cap_s: float = 0.16,
    latency_s: float = 0.002,
    visibility_timeout_s: float = 1.0,
    max_receives: int = 3,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Charge `messages` fees through a service failing with probability `fail_p`, with retries.

    Bounds: messages 1..2000, workers 1..32, fail_p 0..1, attempts 1..10, base_s 0..1,
    cap_s 0..5, latency_s 0..0.5, visibility_timeout_s 0.05..10, max_receives 1..20.
    """
    check_int("messages", messages, 1, MAX_FLAKY_MESSAGES)
    check_int("workers", workers, 1, MAX_WORKERS)
    check_float("fail_p", fail_p, 0.0, 1.0)
    check_int("attempts", attempts, 1, 10)
    check_float("base_s", base_s, 0.0, 1.0)
    check_float("cap_s", cap_s, 0.0, 5.0)
    check_float("latency_s", latency_s, 0.0, 0.5)
    check_float("visibility_timeout_s", visibility_timeout_s, 0.05, 10.0)
    check_int("max_receives", max_receives, 1, 20)

    service = StandInService(latency_s=latency_s, fail_p=fail_p, seed=seed)
    lock = threading.Lock()
    waits: list[float] = []
    first_ok_at: dict[int, int] = {}  # attempt number -> receives that succeeded on it

    with context.run(seed) as run:
        queue = RedisQueue(
            run.redis,
            run.ns,
            visibility_timeout_s=visibility_timeout_s,
            max_receives=max_receives,
        )
        charged = Effects(run.redis, run.ns, kind="fee_charged")

        def make_handler(ctx: WorkerContext) -> Handle:
            mine = charged.with_client(ctx.r)
            rng = random.Random(f"{seed}:jitter:{ctx.consumer}")

            def on_wait(seconds: float) -> None:
                with lock:
                    waits.append(seconds)

            def handle(message: Message) -> None:
                policy = retrying(
                    attempts=attempts,
                    base_s=base_s,
                    cap_s=cap_s,
                    rng=rng,
                    retry_on=(ServiceError,),
                    on_wait=on_wait,
                )
                for attempt in policy:
                    with attempt:
                        n = attempt.retry_state.attempt_number
                        service.call(f"{message.msg_id}:{message.receives}:{n}")
                with lock:
                    first_ok_at[n] = first_ok_at.get(n, 0) + 1
                mine.apply(message.msg_id)

            return handle

        sampler = run.own(
            Sampler(
                queue_reader(queue, charged),
                interval_s=context.interval_s(0.1),
                on_sample=context.on_sample,
            )
        )
        pool = run.own(WorkerPool(queue, make_handler, workers=workers, url=context.redis_url))
        queue.send_many((f"pay-{i}", f"fee {i}") for i in range(messages))
        sampler.start()
        pool.start()
        run.settle(queue, messages, pool, sampler, keep=context.keep_dlq)

        stats = queue.stats()
        totals = charged.totals()
        receives_ok = sum(first_ok_at.values())
        summary = {
            "messages": messages,
            "fail_p": fail_p,
            "attempts": attempts,
            "made": stats.done,
            "dlq": stats.dlq_depth,
            "lost": messages - stats.settled,
            "receives": stats.receives,
            "calls": service.calls,
            "failed_calls": service.failures,
            "retries": len(waits),
            "first_try_ok_share": round(first_ok_at.get(1, 0) / max(1, stats.receives), 4),
            "expected_first_try_ok_share": round(1 - fail_p, 4),
            "ok_within_attempts_share": round(receives_ok / max(1, stats.receives), 4),
            "expected_ok_within_attempts_share": round(1 - fail_p**attempts, 4),
            "mean_wait_s": round(sum(waits) / len(waits), 4) if waits else 0.0,
            "max_wait_s": round(max(waits, default=0.0), 4),
            "longest_possible_wait_s": (
                backoff_ceiling_s(attempts - 1, base_s, cap_s) if attempts > 1 else 0.0
            ),
            "fees_charged": totals["effects"],
            "duplicate_effects": totals["duplicate_effects"],
        } | run.footer()
        histogram = [
            {"attempt": n, "receives_ok": first_ok_at.get(n, 0)} for n in range(1, attempts + 1)
        ] + [{"attempt": gettext_noop("gave up"), "receives_ok": pool.failed}]
        result = {
            "summary": summary,
            "series": sampler.series(
                ["t_s", "visible", "in_flight", "done", "dlq_depth", "receives", "drain_estimate_s"]
            ),
            "tables": {"ok_on_attempt": histogram, "pool": pool.counters()},
        }
    return finish(run, result)
