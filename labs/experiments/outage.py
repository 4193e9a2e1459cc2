"""Lesson 13's circuit breaker on a real queue: one breaker, shared by all workers through Redis.

Payments arrive at a steady rate; workers charge them through a stand-in payments service
that is down for a window. Every worker guards its calls with its own pybreaker breaker, but
all of them keep their state in the same Redis keys: when five calls in a row fail, the
breaker opens for everyone, the workers fail fast and hand the messages back, and after the
reset timeout one trial call decides whether it closes again. The breaker's real state
changes are logged in Redis and returned as a timeline.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pybreaker

from labs.experiments.breaker import RedisBreakerStorage, shared_breaker
from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.effects import Effects
from labs.experiments.faults import StandInService
from labs.experiments.harness import finish
from labs.experiments.limits import MAX_WORKERS, check_float, check_int
from labs.experiments.metrics import Sampler, queue_reader
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.workers import Handle, WorkerContext, WorkerPool

MAX_OUTAGE_MESSAGES = 2000
MAX_OUTAGE_WALL_S = 40.0
STATE_LEVEL = {
    pybreaker.STATE_CLOSED: 0.0,
    pybreaker.STATE_HALF_OPEN: 0.5,
    pybreaker.STATE_OPEN: 1.0,
}


def outage(
    messages: int = 150,
    workers: int = 4,
    arrival_rate_per_s: float = 30.0,
    *,
    down_from_s: float = 1.0,
    down_for_s: float = 3.0,
    fail_max: int = 5,
    reset_timeout_s: float = 1.0,
    latency_s: float = 0.005,
    visibility_timeout_s: float = 0.5,
    max_receives: int = 50,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Send payments at `arrival_rate_per_s` through a shared breaker to a service down a while.

    Bounds: messages 1..2000, workers 1..32, arrival_rate_per_s 1..1000,
    messages / arrival_rate_per_s <= 40 s, down_from_s 0..30, down_for_s 0..30,
    fail_max 1..100, reset_timeout_s 0.05..10, latency_s 0..0.5,
    visibility_timeout_s 0.05..10, max_receives 1..100.
    """
    check_int("messages", messages, 1, MAX_OUTAGE_MESSAGES)
    check_int("workers", workers, 1, MAX_WORKERS)
    check_float("arrival_rate_per_s", arrival_rate_per_s, 1.0, 1000.0)
    check_float(
        "messages / arrival_rate_per_s", messages / arrival_rate_per_s, 0, MAX_OUTAGE_WALL_S
    )
    check_float("down_from_s", down_from_s, 0.0, 30.0)
    check_float("down_for_s", down_for_s, 0.0, 30.0)
    check_int("fail_max", fail_max, 1, 100)
    check_float("reset_timeout_s", reset_timeout_s, 0.05, 10.0)
    check_float("latency_s", latency_s, 0.0, 0.5)
    check_float("visibility_timeout_s", visibility_timeout_s, 0.05, 10.0)
    check_int("max_receives", max_receives, 1, 100)

    down_until_s = down_from_s + down_for_s
    service = StandInService(latency_s=latency_s, down=(down_from_s, down_until_s), seed=seed)
    lock = threading.Lock()
    fast_fails = [0]
    # Calls that went through while the breaker was half-open: pybreaker lets every worker
    # that finds it half-open make its call, not one trial alone.
    half_open_calls = [0]

    with context.run(seed) as run:
        queue = RedisQueue(
            run.redis, run.ns, visibility_timeout_s=visibility_timeout_s, max_receives=max_receives
        )
        charged = Effects(run.redis, run.ns, kind="fee_charged")
        watch = RedisBreakerStorage(run.redis, run.ns, "payments")

        def make_handler(ctx: WorkerContext) -> Handle:
            mine = charged.with_client(ctx.r)
            breaker = shared_breaker(
                ctx.r, run.ns, name="payments", fail_max=fail_max, reset_timeout_s=reset_timeout_s
            )

            def handle(message: Message) -> None:
                reached = False

                def pay() -> None:
                    nonlocal reached
                    reached = True
                    if breaker.current_state == pybreaker.STATE_HALF_OPEN:
                        with lock:
                            half_open_calls[0] += 1
                    service.call(message.msg_id)

                try:
                    breaker.call(pay)
                except pybreaker.CircuitBreakerError:
                    if not reached:
                        with lock:
                            fast_fails[0] += 1
                    raise
                mine.apply(message.msg_id)

            return handle

        read = queue_reader(queue, charged)

        def read_with_breaker() -> dict[str, Any]:
            state = watch.state
            return read() | {
                "breaker_state": state,
                "breaker_level": STATE_LEVEL.get(state),
                "service_down": 1 if service.is_down() else 0,
            }

        sampler = run.own(
            Sampler(
                read_with_breaker, interval_s=context.interval_s(0.05), on_sample=context.on_sample
            )
        )
        pool = run.own(WorkerPool(queue, make_handler, workers=workers, url=context.redis_url))
        service.start()
        wall0 = time.time()
        sampler.start(t0=service.started_at)
        pool.start()

        sent = 0
        while sent < messages and not run.stopped():
            due = min(messages, int(service.elapsed_s() * arrival_rate_per_s) + 1)
            if due > sent:
                queue.send_many((f"pay-{i}", f"fee {i}") for i in range(sent, due))
                sent = due
            time.sleep(0.01)
        run.settle(queue, sent, pool, sampler, keep=context.keep_dlq)

        stats = queue.stats()
        totals = charged.totals()
        timeline = [{"t_s": round(t - wall0, 3), "state": s} for t, s in watch.timeline()]
        first_ok_after = [t for t in service.ok_times if t >= down_until_s]
        states = [row["state"] for row in timeline]
        # An opening right after half-open came from a failed trial, not from `fail_max`
        # failures in a row: pybreaker reopens on the first failure while half-open.
        after_trial = sum(
            1
            for before, now in zip([pybreaker.STATE_CLOSED, *states], states, strict=False)
            if now == pybreaker.STATE_OPEN and before == pybreaker.STATE_HALF_OPEN
        )
        summary = {
            "messages": messages,
            "sent": sent,
            "made": stats.done,
            "dlq": stats.dlq_depth,
            "lost": sent - stats.settled,
            "down_from_s": down_from_s,
            "down_until_s": down_until_s,
            "reached_sick_service": service.calls_while_down,
            "failed_fast": fast_fails[0],
            "opened": states.count(pybreaker.STATE_OPEN),
            "opened_after_failures": states.count(pybreaker.STATE_OPEN) - after_trial,
            "opened_after_trial": after_trial,
            "half_open_calls": half_open_calls[0],
            "first_ok_after_recovery_s": (
                round(first_ok_after[0] - down_until_s, 3) if first_ok_after else None
            ),
            "state_at_end": watch.state,
            "receives": stats.receives,
            "fees_charged": totals["effects"],
            "duplicate_effects": totals["duplicate_effects"],
        } | run.footer()
        result = {
            "summary": summary,
            "series": sampler.series(
                [
                    "t_s",
                    "breaker_state",
                    "breaker_level",
                    "service_down",
                    "visible",
                    "in_flight",
                    "done",
                    "oldest_age_s",
                ]
            ),
            "tables": {"breaker_timeline": timeline, "pool": pool.counters()},
        }
    return finish(run, result)
