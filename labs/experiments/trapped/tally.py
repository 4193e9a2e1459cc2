"""Counts of what happened during the current model second, shared by the run's threads.

Callers and workers add to the open second; the run's main loop closes it once a second
(of model time) and starts the next. Latencies of answered requests are kept per second
for the p50 / p99 lines, and worker time is added up for the wasted-work share.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

MAX_LATENCIES_PER_S = 5000  # a model second with more answers keeps the first ones only


class Tally:
    """Thread-safe counters for the open second, plus totals for the whole run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._waits: list[float] = []  # model seconds: the answered attempt's wait
        self._call_waits: list[float] = []  # model seconds: from the call's first attempt
        self.all_latencies: list[float] = []  # model ms, the whole run
        self.work_s = {"useful_s": 0.0, "wasted_s": 0.0, "drop_s": 0.0}

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n

    def answered(self, useful: bool, latency_ms: float, call_ms: float, work_s: float) -> None:
        """A worker finished a request after `work_s` model seconds of work; the caller (if
        still waiting) had waited `latency_ms` for this attempt, `call_ms` for the call."""
        with self._lock:
            self._counts["completions"] += 1
            if useful:
                self._counts["useful"] += 1
                self.work_s["useful_s"] += work_s
                if len(self._waits) < MAX_LATENCIES_PER_S:
                    self._waits.append(latency_ms / 1000.0)
                    self._call_waits.append(call_ms / 1000.0)
            else:
                self._counts["wasted"] += 1
                self.work_s["wasted_s"] += work_s

    def dropped(self, n: int, payments: int, work_s: float) -> None:
        """A worker threw `n` expired requests away, spending `work_s` model seconds."""
        with self._lock:
            self._counts["expired_dropped"] += n
            self._counts["payments_dropped"] += payments
            self.work_s["drop_s"] += work_s

    def close_second(self) -> tuple[Counter[str], list[float], list[float]]:
        """The open second's counts and answered waits (attempt, call; model seconds)."""
        with self._lock:
            counts, waits, calls = self._counts, self._waits, self._call_waits
            self._counts, self._waits, self._call_waits = Counter(), [], []
            self.all_latencies += [w * 1000.0 for w in waits]
        return counts, waits, calls

    def work(self) -> dict[str, Any]:
        with self._lock:
            return dict(self.work_s)


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0-100) by nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return round(ordered[int(rank) - 1], 3)
