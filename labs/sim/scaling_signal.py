"""Lessons 07 and 12: which signal should add workers when the work is I/O-bound?

A worker that sends SMS or calls a provider spends most of each job waiting on the
network, so even when it is busy every moment its CPU stays low. A scaler that watches CPU
then sees an idle pool while the queue grows, and never adds a worker. Four scalers watch
the same queue, one second at a time, each with its own signal:

- `cpu`: the pool's CPU against a target, the way a Kubernetes HPA scales on
  utilisation: `ceil(workers * cpu / target)`.
- `depth`: an alarm on the number of messages waiting; over the threshold it adds one
  worker, on an empty queue it removes one (step scaling on a queue-depth alarm).
- `per_worker`: the backlog shared out, `ceil(backlog / per_waiting)`: one worker for
  every `per_waiting` messages (Lesson 12's rule; KEDA's `queueLength`).
- `age`: the oldest message's age against a target, `ceil(workers * age / target)`.

As in Lesson 12's `drain`, each scaler decides from what it saw at the end of the previous
second (a real metric is a little late), and a cool-down keeps it from changing the pool
again too soon after a change.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Literal, NamedTuple

Signal = Literal["cpu", "depth", "per_worker", "age"]
SIGNALS: tuple[Signal, ...] = ("cpu", "depth", "per_worker", "age")


class Settings(NamedTuple):
    """What every scaler is given; each reads only the knobs of its own signal."""

    per_worker: int  # jobs one worker finishes a second
    busy_cpu_pct: float  # CPU of a worker that is busy the whole second
    min_workers: int
    max_workers: int
    cooldown_s: int  # seconds after a change before the pool may change again
    cpu_target_pct: float  # cpu: the utilisation it aims for
    depth_alarm: int  # depth: add a worker while more than this many wait
    per_waiting: int  # per_worker: one worker for this many waiting
    age_target_s: float  # age: the oldest message's age it aims for


class ScaleRow(NamedTuple):
    """One simulated second under one scaler."""

    second: int
    arrived: int
    workers: int
    done: int
    backlog: int  # waiting at the end of the second
    cpu_pct: float  # the pool's average CPU this second
    oldest_age_s: int  # how long the oldest waiting job has waited, at the end of the second


def _check(s: Settings) -> None:
    if s.per_worker < 1:
        raise ValueError(f"per_worker must be >= 1, got {s.per_worker}")
    if not 0 < s.busy_cpu_pct <= 100:
        raise ValueError(f"busy_cpu_pct must be in (0, 100], got {s.busy_cpu_pct}")
    if not 1 <= s.min_workers <= s.max_workers:
        raise ValueError(f"need 1 <= min_workers <= max_workers, got {s.min_workers}")
    if s.cooldown_s < 1:
        raise ValueError(f"cooldown_s must be >= 1, got {s.cooldown_s}")
    if not 0 < s.cpu_target_pct <= 100:
        raise ValueError(f"cpu_target_pct must be in (0, 100], got {s.cpu_target_pct}")
    if s.depth_alarm < 0 or s.per_waiting < 1 or s.age_target_s <= 0:
        raise ValueError("depth_alarm must be >= 0, per_waiting >= 1 and age_target_s > 0")


def wanted(signal: Signal, s: Settings, workers: int, last: ScaleRow | None) -> int:
    """How many workers `signal` asks for, from the pool now and the last second's metrics."""
    if last is None:
        return s.min_workers
    if signal == "cpu":
        return math.ceil(round(workers * last.cpu_pct / s.cpu_target_pct, 9))
    if signal == "depth":
        if last.backlog > s.depth_alarm:
            return workers + 1
        return workers - 1 if last.backlog == 0 else workers
    if signal == "per_worker":
        return -(-last.backlog // s.per_waiting)
    return math.ceil(round(workers * last.oldest_age_s / s.age_target_s, 9))


def scale(arrivals: Sequence[int], signal: Signal, s: Settings) -> list[ScaleRow]:
    """Play `arrivals` (jobs per second) through a pool sized by `signal`."""
    _check(s)
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {', '.join(SIGNALS)}, got {signal!r}")
    waiting: deque[list[int]] = deque()  # [second it arrived, jobs], oldest first
    backlog, workers, changed_at = 0, s.min_workers, -s.cooldown_s
    rows: list[ScaleRow] = []
    for second, arrived in enumerate(arrivals):
        if arrived < 0:
            raise ValueError(f"arrivals[{second}] must be >= 0, got {arrived}")
        target = min(
            s.max_workers,
            max(s.min_workers, wanted(signal, s, workers, rows[-1] if rows else None)),
        )
        if target != workers and second - changed_at >= s.cooldown_s:
            workers, changed_at = target, second
        if arrived:
            waiting.append([second, arrived])
        backlog += arrived
        done = min(backlog, workers * s.per_worker)
        backlog -= done
        left = done
        while left:
            take = min(left, waiting[0][1])
            waiting[0][1] -= take
            left -= take
            if not waiting[0][1]:
                waiting.popleft()
        busy = done / (workers * s.per_worker)
        age = second + 1 - waiting[0][0] if waiting else 0
        rows.append(ScaleRow(second, arrived, workers, done, backlog, busy * s.busy_cpu_pct, age))
    return rows


def cleared_at(rows: Sequence[ScaleRow]) -> int | None:
    """The first second from which the queue stays empty to the end, or None."""
    at = None
    for row in rows:
        if row.backlog:
            at = None
        elif at is None:
            at = row.second
    return at
