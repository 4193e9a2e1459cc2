"""Operating the dead-letter queue: look, redrive one, redrive all at a bounded rate, purge.

Redriving everything at once would hand the fixed consumer the whole backlog in one go, the
same burst that may have broken it. So `redrive_all` moves messages through a small token
bucket: at most `rate_per_s` per second, like SQS's message move task with a maximum velocity.
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
    burst: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> RedriveReport:
    """Move every parked message back to the source queue, never faster than `rate_per_s`.

    A token bucket holding at most `burst` tokens (default: 1, or 50 ms worth of the rate if
    that is more): in any window of w seconds at most `burst + rate_per_s * w` messages move,
    even after a pause, because tokens do not pile up beyond the bucket.
    """
    rate_per_s = check_float("rate_per_s", rate_per_s, 0.1, 10_000.0)
    burst = check_float("burst", burst or max(1.0, rate_per_s / 20), 1.0, 1000.0)
    report = RedriveReport()
    start = last = clock()
    tokens = 1.0
    while True:
        if should_stop is not None and should_stop():
            report.stopped = True
            break
        now = clock()
        tokens = min(burst, tokens + (now - last) * rate_per_s)
        last = now
        if tokens < 1:
            if queue.dlq_depth() == 0:
                break
            sleep((1 - tokens) / rate_per_s)
            continue
        want = int(tokens)
        moved = queue.redrive_oldest(want)
        tokens -= len(moved)
        t_s = clock() - start
        report.moves += [(round(t_s, 4), msg_id) for msg_id, _ in moved]
        report.moved += len(moved)
        if len(moved) < want:
            break  # the DLQ is empty
    report.duration_s = clock() - start
    return report
