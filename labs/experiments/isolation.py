"""Lesson 07's failure isolation on the real Redis: the SMS provider goes down, the front does not.

Why a lab of its own (not the breaker experiment in `outage.py`): Lesson 07 has no breaker.
Its point is that the queue between the front and the provider isolates the failure. The
front keeps putting jobs on the queue and answering while the provider is down; the jobs
wait, the age of the oldest one grows, an alarm on that age fires, and after recovery the
workers drain the backlog and the alarm clears. Nothing is lost unless the redrive policy
gives up on messages during the outage (maxReceiveCount too low for its length).

The provider also has a limit: at most `provider_limit` calls at once. A worker beyond it
gets 429 Too Many Requests, waits one call's time and tries again: more workers than the
provider allows only add refused calls, not speed.

The run is time-scaled: one lesson minute lasts `minute_s` real seconds (0.2 s by default),
so the lesson's 10-minute outage takes two seconds.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.faults import ServiceError, StandInService
from labs.experiments.harness import finish
from labs.experiments.limits import check_float, check_int
from labs.experiments.metrics import Sampler
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.workers import Handle, WorkerContext, WorkerPool

MAX_JOBS = 3000
MAX_LESSON_MINUTES = 60.0
MAX_WALL_S = 20.0

# What the sampler reads, time first: the result's series, and what the lab shows live.
SERIES = (
    "t_s",
    "t_min",
    "visible",
    "in_flight",
    "done",
    "dlq_depth",
    "oldest_age_min",
    "provider_down",
    "throttled",
)


class Throttled(ServiceError):
    """429 Too Many Requests: the provider already has as many calls as it allows."""


class LimitedProvider:
    """The stand-in SMS provider with a ceiling on calls in progress at once."""

    def __init__(self, service: StandInService, limit: int) -> None:
        self.service = service
        self.limit = check_int("provider_limit", limit, 1, 1000)
        self._lock = threading.Lock()
        self._busy = 0
        self.throttled = 0
        self.peak_busy = 0

    def call(self, key: str) -> None:
        with self._lock:
            if self._busy >= self.limit:
                self.throttled += 1
                raise Throttled("429 Too Many Requests")
            self._busy += 1
            self.peak_busy = max(self.peak_busy, self._busy)
        try:
            self.service.call(key)
        finally:
            with self._lock:
                self._busy -= 1


def provider_outage(
    *,
    minutes: float = 20.0,
    arrivals_per_min: float = 30.0,
    workers: int = 4,
    rate_per_worker_per_min: float = 25.0,
    provider_limit: int = 4,
    down_from_min: float = 3.0,
    down_for_min: float = 10.0,
    alarm_age_min: float = 5.0,
    visibility_min: float = 1.0,
    max_receives: int = 20,
    minute_s: float = 0.2,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Jobs arrive for `minutes` lesson minutes; the provider is down for `down_for_min` of them.

    Bounds: minutes 1..60, arrivals_per_min 1..1000 (at most 3000 jobs), workers 1..32,
    rate_per_worker_per_min 1..1000, provider_limit 1..1000, down_from_min and
    down_for_min 0..60, alarm_age_min 0.1..60, visibility_min 0.1..10, max_receives 1..100,
    minute_s 0.05..1 with minutes × minute_s at most 20 s of wall time.
    """
    check_float("minutes", minutes, 1.0, MAX_LESSON_MINUTES)
    check_float("arrivals_per_min", arrivals_per_min, 1.0, 1000.0)
    check_int("jobs", int(minutes * arrivals_per_min), 1, MAX_JOBS)
    check_int("workers", workers, 1, 32)
    check_float("rate_per_worker_per_min", rate_per_worker_per_min, 1.0, 1000.0)
    check_float("down_from_min", down_from_min, 0.0, MAX_LESSON_MINUTES)
    check_float("down_for_min", down_for_min, 0.0, MAX_LESSON_MINUTES)
    check_float("alarm_age_min", alarm_age_min, 0.1, MAX_LESSON_MINUTES)
    check_float("visibility_min", visibility_min, 0.1, 10.0)
    check_int("max_receives", max_receives, 1, 100)
    check_float("minute_s", minute_s, 0.05, 1.0)
    check_float("minutes × minute_s", minutes * minute_s, 0.0, MAX_WALL_S)

    call_s = minute_s / rate_per_worker_per_min
    down = (down_from_min * minute_s, (down_from_min + down_for_min) * minute_s)
    service = StandInService(latency_s=call_s, down=down, seed=seed)
    provider = LimitedProvider(service, provider_limit)
    jobs = int(minutes * arrivals_per_min)
    visibility_s = visibility_min * minute_s
    front_ms: list[float] = []

    with context.run(seed) as run:
        queue = RedisQueue(
            run.redis, run.ns, visibility_timeout_s=visibility_s, max_receives=max_receives
        )

        def make_handler(ctx: WorkerContext) -> Handle:
            def handle(message: Message) -> None:
                started = time.monotonic()
                while True:
                    try:
                        provider.call(message.msg_id)
                        return
                    except Throttled:
                        # Wait one call's time and try again, while the message is still ours.
                        if time.monotonic() - started > visibility_s / 2:
                            raise
                        time.sleep(call_s)
                    except ServiceError:
                        # Down: back off for a while before taking the next job; this one
                        # comes back when its visibility timeout runs out.
                        time.sleep(visibility_s / 2)
                        raise

            return handle

        def read() -> dict[str, Any]:
            stats = queue.stats()
            age = stats.oldest_age_s / minute_s if stats.oldest_age_s is not None else 0.0
            return {
                "t_min": round((time.monotonic() - run.t0) / minute_s, 3),
                "visible": stats.visible,
                "in_flight": stats.in_flight,
                "done": stats.done,
                "dlq_depth": stats.dlq_depth,
                "oldest_age_min": round(age, 3),
                "provider_down": 1 if service.is_down() else 0,
                "throttled": provider.throttled,
            }

        sampler = run.own(
            Sampler(read, interval_s=context.interval_s(0.05), on_sample=context.on_sample)
        )
        pool = run.own(
            WorkerPool(queue, make_handler, workers=workers, url=context.redis_url, name="sms")
        )
        service.start()
        sampler.start(t0=run.t0)
        pool.start()
        sent = 0
        while sent < jobs and not run.stopped():
            due = min(jobs, int(service.elapsed_s() / minute_s * arrivals_per_min) + 1)
            while sent < due:
                began = time.perf_counter()
                queue.send(f"sms-{sent}", "notice 42")  # the front's whole job: one queue write
                front_ms.append((time.perf_counter() - began) * 1000)
                sent += 1
            time.sleep(0.005)
        run.settle(queue, sent, pool, sampler)

        stats = queue.stats()
        samples = sampler.samples
        fired, cleared = alarm_times(samples, alarm_age_min)
        summary = {
            "jobs": jobs,
            "front_answered": len(front_ms),
            "front_slowest_ms": round(max(front_ms, default=0.0), 2),
            "done": stats.done,
            "dlq": stats.dlq_depth,
            "lost": sent - stats.settled,
            "oldest_age_max_min": round(max((s["oldest_age_min"] for s in samples), default=0), 2),
            "alarm_fired_min": fired,
            "alarm_cleared_min": cleared,
            "calls": service.calls + provider.throttled,
            "failed_while_down": service.calls_while_down,
            "throttled": provider.throttled,
            "peak_calls_at_once": provider.peak_busy,
            "receives": stats.receives,
            "backlog_cleared_min": _cleared_min(samples, down_from_min + down_for_min),
        } | run.footer()
        result = {"summary": summary, "series": sampler.series(list(SERIES)), "tables": {}}
    return finish(run, result)


def alarm_times(
    samples: list[dict[str, Any]], threshold_min: float
) -> tuple[float | None, float | None]:
    """When the oldest job's age first reached `threshold_min`, and when it next fell below."""
    fired = cleared = None
    for sample in samples:
        age, t = sample["oldest_age_min"], sample["t_min"]
        if fired is None and age >= threshold_min:
            fired = round(t, 2)
        elif fired is not None and age < threshold_min:
            cleared = round(t, 2)
            break
    return fired, cleared


def _cleared_min(samples: list[dict[str, Any]], back_min: float) -> float | None:
    """The first reading after the provider is back with nothing waiting in the queue."""
    for sample in samples:
        if sample["t_min"] >= back_min and sample["visible"] == 0:
            return round(sample["t_min"], 2)
    return None
