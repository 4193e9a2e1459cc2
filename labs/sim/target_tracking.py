"""Two tiers under target tracking: an API that queues the work, workers that do it (Lesson 12).

Lesson 12 scales the worker tier on the backlog shared out among the workers, compared
with how much one worker gets through within the wait we accept. As a target-tracking
policy, that target is a number of messages per instance: the acceptable latency divided
by the time one message takes (1 s ÷ 10 ms = 100, Lesson 12's "one worker per 100 waiting"). This
model plays one burst through both tiers, one second at a time:

- the **API tier** answers each request (and queues its job); its copies are sized by
  target tracking on CPU, which is its load, since answering is CPU work; requests it
  cannot answer in a second wait for a copy;
- the **worker tier** takes what the API queued; it is sized either by target tracking on
  **backlog per instance** (`ceil(backlog / target)`) or on **CPU**
  (`ceil(instances × CPU / target)`), the policy the lesson warns against.

Both policies come from `labs.sim.scaling_signal.scale` (its `per_worker` and `cpu`
signals): each decides from the metric of the second before, as a real alarm is late, and
may change the pool every second. A worker's CPU is at most `busy_cpu_pct`, so with CPU
work a CPU policy can grow the pool by at most `busy_cpu_pct / cpu_target_pct` a step, and
with I/O work under the target it never grows it at all.

Deterministic: no seed, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from labs.sim.scaling_signal import ScaleRow, Settings, scale

Metric = Literal["backlog", "cpu"]
METRICS: tuple[Metric, ...] = ("backlog", "cpu")


def backlog_target(acceptable_latency_s: float, per_instance: int) -> int:
    """The backlog per instance to aim for: acceptable latency ÷ time one message takes
    (`1 / per_instance` s), whole messages, at least one."""
    if acceptable_latency_s <= 0:
        raise ValueError(f"acceptable_latency_s must be > 0, got {acceptable_latency_s}")
    if per_instance < 1:
        raise ValueError(f"per_instance must be >= 1, got {per_instance}")
    return max(1, math.floor(round(acceptable_latency_s * per_instance, 9)))


@dataclass(frozen=True)
class Tier:
    """One tier's copies: how fast one works, its CPU when busy, its bounds and targets."""

    per_instance: int  # requests or messages one copy finishes a second
    busy_cpu_pct: float  # a copy's CPU when it is busy the whole second
    min_instances: int
    max_instances: int
    cpu_target_pct: float  # what a CPU policy aims for
    acceptable_latency_s: float  # how long a job may wait

    def settings(self) -> Settings:
        return Settings(
            per_worker=self.per_instance,
            busy_cpu_pct=self.busy_cpu_pct,
            min_workers=self.min_instances,
            max_workers=self.max_instances,
            cooldown_s=1,
            cpu_target_pct=self.cpu_target_pct,
            depth_alarm=0,
            per_waiting=backlog_target(self.acceptable_latency_s, self.per_instance),
            age_target_s=self.acceptable_latency_s,
        )


def track(arrivals: Sequence[int], metric: Metric, tier: Tier) -> list[ScaleRow]:
    """Play `arrivals` (a second each) through `tier`, its copies sized on `metric`."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    return scale(arrivals, "per_worker" if metric == "backlog" else "cpu", tier.settings())


@dataclass(frozen=True)
class Blueprint:
    """The burst through the API tier, then through the worker tier on each metric."""

    api: list[ScaleRow]
    workers: dict[Metric, list[ScaleRow]]


def play(arrivals: Sequence[int], api: Tier, workers: Tier) -> Blueprint:
    """The API (on CPU) answers the burst; what it answered each second is what it queued
    for the workers, played once per worker metric."""
    answered = track(arrivals, "cpu", api)
    queued = [row.done for row in answered]
    return Blueprint(answered, {metric: track(queued, metric, workers) for metric in METRICS})


def late_seconds(rows: Sequence[ScaleRow], acceptable_latency_s: float) -> int:
    """Seconds that ended with the oldest waiting job older than the acceptable latency."""
    return sum(1 for row in rows if row.oldest_age_s > acceptable_latency_s)
