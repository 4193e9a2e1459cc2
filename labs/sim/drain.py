"""A queue drained one second at a time by a pool of workers (Lesson 12).

The autoscaler decides how many workers to run from the backlog it saw *before*
this second's arrivals, because a real scaler reads a metric that is a little late.
That lag is why the first second of a burst is always slow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple


class DrainRow(NamedTuple):
    """One simulated second: what arrived, how many workers ran, what they did."""

    second: int
    arrived: int
    workers: int
    done: int
    backlog: int


def drain(
    arrivals: Sequence[int],
    per_worker: int,
    workers_for: Callable[[int], int],
) -> list[DrainRow]:
    """Play `arrivals` (jobs per second) through workers that each finish `per_worker` a second.

    `workers_for(backlog)` is the scaling rule: it gets the backlog left at the end of
    the previous second and returns how many workers run in this one.
    Returns one `(second, arrived, workers, done, backlog)` row per second.
    """
    if per_worker < 0:
        raise ValueError(f"per_worker must be >= 0, got {per_worker}")
    rows: list[DrainRow] = []
    backlog = 0
    for second, arrived in enumerate(arrivals):
        if arrived < 0:
            raise ValueError(f"arrivals[{second}] must be >= 0, got {arrived}")
        workers = workers_for(backlog)
        if workers < 0:
            raise ValueError(f"workers_for({backlog}) must be >= 0, got {workers}")
        backlog += arrived
        done = min(backlog, workers * per_worker)
        backlog -= done
        rows.append(DrainRow(second, arrived, workers, done, backlog))
    return rows


def fixed(workers: int) -> Callable[[int], int]:
    """A scaling rule that always runs the same number of workers."""
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    return lambda backlog: workers


def per_backlog(per_waiting: int, low: int, high: int) -> Callable[[int], int]:
    """One worker for every `per_waiting` jobs waiting (rounded up), kept within [low, high]."""
    if per_waiting < 1:
        raise ValueError(f"per_waiting must be >= 1, got {per_waiting}")
    if not 0 <= low <= high:
        raise ValueError(f"need 0 <= low <= high, got low={low}, high={high}")
    return lambda backlog: min(high, max(low, -(-backlog // per_waiting)))


def drain_summary(rows: Sequence[DrainRow]) -> dict[str, int]:
    """The three figures the lesson prints for a scaling rule."""
    return {
        "peak_backlog": max((r.backlog for r in rows), default=0),
        "most_workers": max((r.workers for r in rows), default=0),
        "left_at_end": rows[-1].backlog if rows else 0,
    }
