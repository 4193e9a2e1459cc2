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
from collections.abc import Iterable, Sequence

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
