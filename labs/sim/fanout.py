"""How long queued work takes, and the backlog a busy spell leaves (Lesson 07).

The request that puts a job on a queue answers at once; the work behind it takes
jobs / (workers × rate per worker). When jobs arrive faster than the workers finish,
the difference piles up as a backlog, which drains only after the rush.
"""

from __future__ import annotations

import math

from labs.sim.drain import DrainRow, drain, fixed


def fanout_time_s(jobs: int, workers: int, rate_per_worker_per_s: float) -> float:
    """Seconds for `workers` to finish `jobs` when each does `rate_per_worker_per_s`.

    Double the workers and the time halves; halve the rate and it doubles.
    """
    if jobs < 0:
        raise ValueError(f"jobs must be >= 0, got {jobs}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if rate_per_worker_per_s <= 0:
        raise ValueError(f"rate_per_worker_per_s must be > 0, got {rate_per_worker_per_s}")
    return jobs / (workers * rate_per_worker_per_s)


def fanout_time_min(jobs: int, workers: int, rate_per_worker_per_s: float) -> float:
    """The same time as `fanout_time_s`, in minutes (5M SMS, 50 × 50 a second: 33.3)."""
    return fanout_time_s(jobs, workers, rate_per_worker_per_s) / 60


def busy_backlog(arrive_per_s: float, capacity_per_s: float, busy_s: float) -> float:
    """Jobs left waiting after `busy_s` seconds of arrivals faster than the workers.

    Zero when the workers keep up: a queue cannot hold a negative number of jobs.
    """
    if arrive_per_s < 0:
        raise ValueError(f"arrive_per_s must be >= 0, got {arrive_per_s}")
    if capacity_per_s < 0:
        raise ValueError(f"capacity_per_s must be >= 0, got {capacity_per_s}")
    if busy_s < 0:
        raise ValueError(f"busy_s must be >= 0, got {busy_s}")
    return max(0, arrive_per_s - capacity_per_s) * busy_s


def clear_time_s(backlog: float, capacity_per_s: float, arrive_per_s: float = 0) -> float:
    """Seconds to empty a `backlog` once arrivals drop to `arrive_per_s`.

    The workers gain on the backlog only by what they do beyond the new arrivals. If
    they gain nothing, the backlog never clears and the answer is `math.inf`.
    """
    if backlog < 0:
        raise ValueError(f"backlog must be >= 0, got {backlog}")
    if capacity_per_s < 0:
        raise ValueError(f"capacity_per_s must be >= 0, got {capacity_per_s}")
    if arrive_per_s < 0:
        raise ValueError(f"arrive_per_s must be >= 0, got {arrive_per_s}")
    if backlog == 0:
        return 0.0
    gain_per_s = capacity_per_s - arrive_per_s
    return backlog / gain_per_s if gain_per_s > 0 else math.inf


def rush(
    arrive_per_s: int,
    capacity_per_s: int,
    busy_s: int = 60,
    after_s: int = 20,
    arrive_after_per_s: int = 0,
) -> list[DrainRow]:
    """The busy spell and what follows, second by second, for a chart.

    `arrive_per_s` jobs arrive each second for `busy_s` seconds, then
    `arrive_after_per_s` for `after_s` more; one pool finishes up to `capacity_per_s`
    a second. Rows are Lesson 12's `(second, arrived, workers, done, backlog)` with
    one worker standing for the whole pool.
    """
    for name, value in (
        ("arrive_per_s", arrive_per_s),
        ("capacity_per_s", capacity_per_s),
        ("busy_s", busy_s),
        ("after_s", after_s),
        ("arrive_after_per_s", arrive_after_per_s),
    ):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    arrivals = [arrive_per_s] * busy_s + [arrive_after_per_s] * after_s
    return drain(arrivals, capacity_per_s, fixed(1))
