"""A read the user waits for, answered directly or put through a queue (Lesson 07).

Lesson 07 queues slow work the user need not wait for. Its warning runs the other way: a
read the user *is* waiting for, put through a queue, makes them wait longer. This model
plays the same reads both ways at the same load, so the two waits can be set side by side.

The rules, on a clock of whole milliseconds:
- reads arrive evenly, `reads_per_s` a second for `duration_s` seconds;
- **directly**: `servers` web threads; a read takes the thread that is free first (first
  come, first served) and holds it `read_ms`; the user has the answer when the read ends;
- **through the queue**: the job is on the queue `enqueue_ms` after the request, and the
  page gets "accepted"; `servers` workers (as many as the web threads, so the same
  capacity for reads) take jobs in order and hold each `read_ms + store_ms` (the read,
  then storing the answer where the page can fetch it); the page asks for the answer
  every `poll_ms` from the moment it got "accepted", and the user has it at the first ask
  at or after it was stored.
The front's few milliseconds of thread time for the enqueue and the asks are not counted:
counting them would only make the queue look worse.

Deterministic: no seed, no randomness.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

# Bounds that keep one run well under a second of CPU at its largest (60,000 reads, twice).
LIMITS: dict[str, tuple[int, int]] = {
    "reads_per_s": (1, 500),
    "duration_s": (5, 120),
    "read_ms": (1, 5_000),
    "servers": (1, 64),
    "enqueue_ms": (0, 1_000),
    "store_ms": (0, 1_000),
    "poll_ms": (10, 5_000),
}


@dataclass(frozen=True)
class ReadSetup:
    """One run's settings; the defaults are the lab's starting point."""

    reads_per_s: int = 40
    duration_s: int = 30
    read_ms: int = 40
    servers: int = 4
    enqueue_ms: int = 10
    store_ms: int = 5
    poll_ms: int = 500

    def __post_init__(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} must be between {low} and {high}, got {value}")

    def arrivals_ms(self) -> list[int]:
        gap_ms = 1000 / self.reads_per_s
        return [int(i * gap_ms) for i in range(self.reads_per_s * self.duration_s)]


@dataclass(frozen=True)
class ReadWaits:
    """Each read's wait one way, in arrival order, with the parts it is made of."""

    arrived_ms: list[int]
    wait_ms: list[int]  # from the request to the answer on the user's screen
    for_server_ms: list[int]  # waiting for a free thread or worker
    for_ask_ms: list[int]  # the answer stored, waiting for the page's next ask (queue only)

    def median_ms(self) -> float:
        return percentile(self.wait_ms, 50)

    def p99_ms(self) -> float:
        return percentile(self.wait_ms, 99)

    def per_second(self, duration_s: int) -> tuple[list[float | None], list[int | None]]:
        """(mean wait, worst wait) of the reads that arrived in each second."""
        sums = [0] * duration_s
        counts = [0] * duration_s
        worst: list[int | None] = [None] * duration_s
        for at_ms, ms in zip(self.arrived_ms, self.wait_ms, strict=True):
            i = at_ms // 1000
            sums[i] += ms
            counts[i] += 1
            current = worst[i]
            worst[i] = ms if current is None else max(current, ms)
        means = [round(s / c, 1) if c else None for s, c in zip(sums, counts, strict=True)]
        return means, worst


def percentile(values: list[int], p: float) -> float:
    """The p-th percentile by nearest rank (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1])


def _served(ready_ms: list[int], hold_ms: int, servers: int) -> list[int]:
    """When each job (ready in this order) gets a server, first come, first served."""
    free = [0] * servers  # when each server is next free
    starts = []
    for ready in ready_ms:
        start = max(ready, heapq.heappop(free))
        heapq.heappush(free, start + hold_ms)
        starts.append(start)
    return starts


def answer_directly(setup: ReadSetup) -> ReadWaits:
    """A web thread does the read and replies."""
    arrived = setup.arrivals_ms()
    starts = _served(arrived, setup.read_ms, setup.servers)
    return ReadWaits(
        arrived_ms=arrived,
        wait_ms=[start + setup.read_ms - at for at, start in zip(arrived, starts, strict=True)],
        for_server_ms=[start - at for at, start in zip(arrived, starts, strict=True)],
        for_ask_ms=[0] * len(arrived),
    )


def through_the_queue(setup: ReadSetup) -> ReadWaits:
    """The request queues a job and replies "accepted"; a worker reads and stores the
    answer; the page shows it at its first ask after the answer was stored."""
    arrived = setup.arrivals_ms()
    queued = [at + setup.enqueue_ms for at in arrived]
    starts = _served(queued, setup.read_ms + setup.store_ms, setup.servers)
    waits, for_ask = [], []
    for at, on_queue, start in zip(arrived, queued, starts, strict=True):
        stored = start + setup.read_ms + setup.store_ms
        asks = max(1, math.ceil((stored - on_queue) / setup.poll_ms))
        seen = on_queue + asks * setup.poll_ms
        waits.append(seen - at)
        for_ask.append(seen - stored)
    return ReadWaits(
        arrived_ms=arrived,
        wait_ms=waits,
        for_server_ms=[start - q for q, start in zip(queued, starts, strict=True)],
        for_ask_ms=for_ask,
    )
