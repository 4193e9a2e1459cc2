"""Readings of a live queue: a sampler for the live chart and a snapshot for the queue panel.

The drain estimate is the lesson's "backlog / net capacity": how long the messages waiting
now would take to clear if messages keep being done and arriving at the rates of the last
second. When they arrive faster than they are done there is no estimate (None): the queue
is growing, not draining.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from labs.experiments.effects import Effects
from labs.experiments.limits import check_float, check_int
from labs.experiments.queue import RedisQueue

Sample = dict[str, Any]
OnSample = Callable[[Sample], None]


def drain_estimate_s(backlog: int, done_per_s: float, arrivals_per_s: float = 0.0) -> float | None:
    """Seconds until `backlog` clears at the net rate `done_per_s - arrivals_per_s`.

    0 for an empty queue; None when the net rate is not positive (it will not clear).
    """
    if backlog < 0:
        raise ValueError(f"backlog must be >= 0, got {backlog}")
    if backlog == 0:
        return 0.0
    net = done_per_s - arrivals_per_s
    return round(backlog / net, 3) if net > 0 else None


def queue_reader(queue: RedisQueue, effects: Effects | None = None) -> Callable[[], Sample]:
    """A function that reads the metrics the lab charts from Redis (one or two round trips)."""

    def read() -> Sample:
        stats = queue.stats()
        sample: Sample = {
            "visible": stats.visible,
            "in_flight": stats.in_flight,
            "backlog": stats.backlog,
            "dlq_depth": stats.dlq_depth,
            "oldest_age_s": stats.oldest_age_s,
            "sent": stats.sent,
            "done": stats.done,
            "receives": stats.receives,
            "duplicates_delivered": stats.duplicates_delivered,
            "expired": stats.expired,
        }
        if effects is not None:
            totals = effects.totals()
            sample["effects"] = totals["effects"]
            sample["duplicate_effects"] = totals["duplicate_effects"]
        return sample

    return read


class Sampler:
    """Reads metrics every `interval_s` in a thread and keeps the readings for a live chart.

    Each sample is a dict with `t_s` (seconds since start) plus what `read()` returned; if the
    reading has `backlog`, `done` and `sent`, a `drain_estimate_s` is added from the rates over
    the last `rate_window_s`. `on_sample(sample)` is called with every new sample.
    """

    def __init__(
        self,
        read: Callable[[], Sample],
        *,
        interval_s: float = 0.1,
        on_sample: OnSample | None = None,
        rate_window_s: float = 1.0,
        max_samples: int = 5000,
    ) -> None:
        self.interval_s = check_float("interval_s", interval_s, 0.01, 10.0)
        self.rate_window_s = check_float("rate_window_s", rate_window_s, 0.05, 60.0)
        self.max_samples = check_int("max_samples", max_samples, 1, 100_000)
        self.read = read
        self.on_sample = on_sample
        self.samples: list[Sample] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    def start(self, t0: float | None = None) -> Sampler:
        """Start sampling; `t0` (a time.monotonic value) is time zero of the samples."""
        self._t0 = time.monotonic() if t0 is None else t0
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> list[Sample]:
        """Take one last sample, stop, and return all samples."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
            self.sample_now()
        return self.samples

    def sample_now(self) -> Sample | None:
        """Take one reading now (also used by the thread)."""
        if len(self.samples) >= self.max_samples:
            return None
        t_s = time.monotonic() - self._t0
        try:
            sample = {"t_s": round(t_s, 3)} | self.read()
        except Exception as error:  # a lost reading must not end the run; keep the reason
            self.errors.append(repr(error))
            return None
        self._add_drain_estimate(sample)
        self.samples.append(sample)
        if self.on_sample is not None:
            try:
                self.on_sample(sample)
            except Exception as error:  # the page's callback failing must not stop the run
                self.errors.append(f"on_sample: {error!r}")
        return sample

    def _add_drain_estimate(self, sample: Sample) -> None:
        if not {"backlog", "done", "sent"} <= sample.keys():
            return
        past = None
        for old in reversed(self.samples):
            past = old
            if sample["t_s"] - old["t_s"] >= self.rate_window_s:
                break
        if past is None or sample["t_s"] <= past["t_s"]:
            sample["drain_estimate_s"] = 0.0 if sample["backlog"] == 0 else None
            return
        dt = sample["t_s"] - past["t_s"]
        sample["drain_estimate_s"] = drain_estimate_s(
            sample["backlog"],
            (sample["done"] - past["done"]) / dt,
            (sample["sent"] - past["sent"]) / dt,
        )
        if sample["drain_estimate_s"] is None:
            # Work comes in as fast as it is done: a healthy queue that is not shrinking is
            # keeping up, which is not the same as one that grows.
            sample["keeping_up"] = sample["backlog"] <= past["backlog"]

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.sample_now()
            next_at += self.interval_s
            self._stop.wait(max(0.0, next_at - time.monotonic()))

    def series(self, keys: list[str] | None = None) -> dict[str, list[Any]]:
        """The samples as equal-length columns, the shape charts and CSV export want."""
        keys = keys or (list(self.samples[0]) if self.samples else ["t_s"])
        return {k: [s.get(k) for s in self.samples] for k in keys}


def queue_panel(
    queue: RedisQueue, *, dlq_limit: int = 20, capacity_per_s: float | None = None
) -> dict[str, Any]:
    """A snapshot for the queue panel: depth, in flight, oldest age, drain estimate, the DLQ.

    Without a rate history the drain estimate is backlog / `capacity_per_s` (workers x rate),
    or None if the capacity is not given.
    """
    stats = queue.stats()
    estimate = None
    if capacity_per_s is not None:
        estimate = drain_estimate_s(
            stats.backlog, check_float("capacity_per_s", capacity_per_s, 0, 1e9)
        )
    return {
        "depth": stats.visible,
        "in_flight": stats.in_flight,
        "oldest_age_s": stats.oldest_age_s,
        "drain_estimate_s": estimate,
        "done": stats.done,
        "expired": stats.expired,
        "dlq_depth": stats.dlq_depth,
        "dlq": [
            {"id": d.msg_id, "receives": d.receives, "last_error": d.last_error}
            for d in queue.dead_letters(dlq_limit)
        ],
    }
