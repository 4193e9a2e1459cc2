"""Assignment 05's drain arithmetic: how long a backlog takes to empty, if ever.

The workers finish `capacity` jobs a second while `arrivals` more come in, so the backlog
shrinks by the difference (the net capacity). Backlog ÷ net capacity is the ideal drain
time; with no net capacity the queue never empties, however long one waits. Real queues
drain slower than this ideal (jobs cost different amounts, dependencies slow down), which is
why the assignment compares the estimate with the oldest message's age as it falls.
"""

from __future__ import annotations


def net_capacity(capacity: float, arrivals: float) -> float:
    """Jobs a second the backlog shrinks by (negative: it grows)."""
    return capacity - arrivals


def drain_time(backlog: float, capacity: float, arrivals: float) -> float | None:
    """Seconds until the backlog is empty, or None when it never empties at these rates."""
    if backlog < 0 or capacity < 0 or arrivals < 0:
        raise ValueError("backlog, capacity and arrivals must be >= 0")
    if backlog == 0:
        return 0.0
    net = net_capacity(capacity, arrivals)
    return backlog / net if net > 0 else None


def backlog_at(backlog: float, capacity: float, arrivals: float, t: float) -> float:
    """The backlog `t` seconds on, never below zero (an empty queue waits for work)."""
    return max(0.0, backlog - net_capacity(capacity, arrivals) * t)
