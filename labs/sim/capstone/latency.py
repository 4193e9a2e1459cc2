"""Latency percentiles: how long answered callers waited, second by second and per window.

A mean hides the callers a service lets down; targets are written as "p99 under 500 ms".
The models collect, for every second, how long each caller answered in that second had
waited (in seconds), and this module turns those lists into percentiles in milliseconds.

Percentiles use the nearest-rank rule: p of n sorted values is the value at rank
ceil(p / 100 * n). It always returns a latency that really happened and can be checked
by hand: the p50 of [10, 20, 30, 40] ms is 20 ms, its p99 is 40 ms. A second or a window
in which nobody was answered has no latency: None (null in JSON), never a made-up 0.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from typing import Protocol

PERCENTILES = (50, 95, 99)


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The nearest-rank p-th percentile of values already sorted ascending, or None if empty."""
    if not 0 < p <= 100:
        raise ValueError(f"p must be > 0 and <= 100, got {p}")
    if not ordered:
        return None
    return ordered[max(0, math.ceil(p / 100.0 * len(ordered)) - 1)]


def to_ms(seconds: float | None) -> float | None:
    """Seconds to milliseconds, rounded to 0.1 ms (finer than any figure the labs show)."""
    return None if seconds is None else round(seconds * 1000.0, 1)


def percentiles_ms(waits_s: Iterable[float]) -> dict[int, float | None]:
    """{50: p50_ms, 95: p95_ms, 99: p99_ms} of the waits (seconds) of some answered callers."""
    ordered = sorted(waits_s)
    return {p: to_ms(percentile(ordered, p)) for p in PERCENTILES}


def series_ms(per_second: Sequence[Sequence[float]], prefix: str) -> dict[str, list[float | None]]:
    """Per-second series `<prefix>_p50_ms`, `_p95_ms`, `_p99_ms` from each second's waits."""
    out: dict[str, list[float | None]] = {f"{prefix}_p{p}_ms": [] for p in PERCENTILES}
    for waits in per_second:
        for p, value in percentiles_ms(waits).items():
            out[f"{prefix}_p{p}_ms"].append(value)
    return out


def window_ms(
    per_second: Sequence[Sequence[float]], windows: dict[str, slice], prefix: str = ""
) -> dict[str, float | None]:
    """Summary figures `<prefix>p99_ms_<window>` (and p50, p95) over windows of seconds.

    `windows` maps a name to a slice of seconds; an empty name gives `p99_ms` itself.
    """
    out: dict[str, float | None] = {}
    for name, seconds in windows.items():
        waits = [w for second in per_second[seconds] for w in second]
        for p, value in percentiles_ms(waits).items():
            out[f"{prefix}p{p}_ms" + (f"_{name}" if name else "")] = value
    return out


class WaitFigures(Protocol):
    """A run's answered waits, second by second, and the figures read from them."""

    def series_ms(self, prefix: str) -> dict[str, list[float | None]]: ...

    def window_ms(self, windows: dict[str, slice], prefix: str = "") -> dict[str, float | None]: ...


class SecondWaits:
    """Each second's waits as Python lists, read by `series_ms` and `window_ms`.

    The compiled capstone loop keeps them in C instead (`_fastloop.Waits`) and reads the
    same figures there; a model reads either through these two methods.
    """

    def __init__(self, per_second: Sequence[Sequence[float]]) -> None:
        self.per_second = per_second

    def series_ms(self, prefix: str) -> dict[str, list[float | None]]:
        return series_ms(self.per_second, prefix)

    def window_ms(self, windows: dict[str, slice], prefix: str = "") -> dict[str, float | None]:
        return window_ms(self.per_second, windows, prefix)


def wait_figures(waits: Sequence[Sequence[float]] | WaitFigures) -> WaitFigures:
    """Waits kept either way (lists per second, or already readable) as `WaitFigures`."""
    if isinstance(waits, (list, tuple)):
        return SecondWaits(waits)
    return waits  # type: ignore[return-value]


class WaitHistogram:
    """Waits counted in 0.1 ms bins: the same percentiles as a list of them, in fixed memory.

    A model with a million answered reads would otherwise keep a million floats to sort
    once at the end. The figures are rounded to 0.1 ms anyway, and rounding keeps the order
    of the values, so the nearest-rank percentile of the rounded waits is exactly the
    rounded percentile of the waits: `percentiles_ms()` equals `percentiles_ms(waits)`.
    Memory: 8 bytes a bin, `max_s` × 10,000 bins (4.8 MB for a 60 s timeout).
    """

    def __init__(self, max_s: float) -> None:
        if not 0 <= max_s <= 3600:
            raise ValueError(f"max_s must be >= 0 and <= 3600, got {max_s}")
        self.counts = array("q", bytes(8 * (int(max_s * 10_000) + 2)))
        self.n = 0

    def add(self, waits_s: Sequence[float]) -> None:
        """Count waits of 0 to `max_s` seconds (most are 0: a hit is answered at once)."""
        counts = self.counts
        zeros = 0
        for wait in waits_s:
            if wait:
                counts[round(round(wait * 1000.0, 1) * 10)] += 1
            else:
                zeros += 1
        counts[0] += zeros
        self.n += len(waits_s)

    def percentiles_ms(self) -> dict[int, float | None]:
        """{50: p50_ms, 95: p95_ms, 99: p99_ms}, as `percentiles_ms` of every wait added."""
        if not self.n:
            return dict.fromkeys(PERCENTILES)
        ranks = {p: max(1, math.ceil(p / 100.0 * self.n)) for p in PERCENTILES}
        out: dict[int, float | None] = {}
        seen = 0
        for tenths, count in enumerate(self.counts):
            if not count:
                continue
            seen += count
            for p, rank in ranks.items():
                if p not in out and seen >= rank:
                    out[p] = tenths / 10
            if len(out) == len(ranks):
                break
        return out
