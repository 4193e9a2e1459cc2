"""Operating the dead-letter queue: look, redrive one, redrive all at a bounded rate, purge.

Redriving everything at once would hand the fixed consumer the whole backlog in one go, the
same burst that may have broken it. So `redrive_all` moves messages by a token bucket:
at most `rate_per_s` per second (plus one to start), like SQS's message move task with a
maximum velocity.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from labs.experiments.limits import check_float
from labs.experiments.queue import RedisQueue


@dataclass
class RedriveReport:
    """What a redrive moved, and when (seconds from its start)."""

    moved: int = 0
    duration_s: float = 0.0
    stopped: bool = False
    moves: list[tuple[float, str]] = field(default_factory=list)  # (t_s, msg_id)

    @property
    def rate_per_s(self) -> float:
        """The achieved rate over the whole redrive."""
        return self.moved / self.duration_s if self.duration_s > 0 else 0.0


def redrive_all(
    queue: RedisQueue,
    rate_per_s: float,
    *,
    should_stop: Callable[[], bool] | None = None,
    max_batch: int = 100,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> RedriveReport:
    """Move every parked message back to the source queue, never faster than `rate_per_s`.

    By time t after the start at most `1 + rate_per_s * t` messages have moved.
    """
    rate_per_s = check_float("rate_per_s", rate_per_s, 0.1, 10_000.0)
    report = RedriveReport()
    start = clock()
    while True:
        if should_stop is not None and should_stop():
            report.stopped = True
            break
        now = clock()
        allowed = int(1 + rate_per_s * (now - start)) - report.moved
        if allowed <= 0:
            if queue.dlq_depth() == 0:
                break
            sleep(min(0.05, report.moved / rate_per_s - (now - start) + 1e-4))
            continue
        moved = queue.redrive_oldest(min(allowed, max_batch))
        t_s = clock() - start
        report.moves += [(round(t_s, 4), msg_id) for msg_id, _ in moved]
        report.moved += len(moved)
        if len(moved) < min(allowed, max_batch):
            break  # the DLQ is empty
    report.duration_s = clock() - start
    return report
