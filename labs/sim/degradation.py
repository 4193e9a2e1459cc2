"""Graceful degradation: a stale page beats an error page (Lesson 13).

While a dependency is healthy every request gets the full answer. While it is down,
a service with a fallback serves the last page it cached, marked with its age, and
one without a fallback returns an error. A service may also refuse to show a page
older than some limit, and then errors return once the cache gets too old.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

Answer = Literal["full", "degraded", "error"]
_ANSWERS: tuple[Answer, ...] = ("full", "degraded", "error")


def serve_with_fallback(
    dependency_ok: bool, cache_age_s: float | None, max_stale_s: float | None = None
) -> tuple[Answer, float | None]:
    """Answer one request and say how old the page shown is, in seconds.

    `cache_age_s` is the age of the cached page, or None when there is no fallback.
    Returns `('full', 0)`, `('degraded', age)` or `('error', None)`.
    """
    if cache_age_s is not None and cache_age_s < 0:
        raise ValueError(f"cache_age_s must be >= 0, got {cache_age_s}")
    if max_stale_s is not None and max_stale_s < 0:
        raise ValueError(f"max_stale_s must be >= 0, got {max_stale_s}")
    if dependency_ok:
        return ("full", 0)
    if cache_age_s is None or (max_stale_s is not None and cache_age_s > max_stale_s):
        return ("error", None)
    return ("degraded", cache_age_s)


class DegradationSecond(NamedTuple):
    """One simulated second: how the requests of that second were answered."""

    second: int
    full: int
    degraded: int
    error: int
    page_age_s: float | None  # age of the page shown; None when nothing was shown


@dataclass(frozen=True)
class DegradationRun:
    """A played outage, second by second, with the share of each kind of answer."""

    seconds: list[DegradationSecond]
    full_share: float
    degraded_share: float
    error_share: float


def play_degradation(
    duration_s: int,
    rate_per_s: int,
    down_from_s: int,
    down_until_s: int,
    fallback: bool = True,
    cache_age_s: float = 300,
    max_stale_s: float | None = None,
) -> DegradationRun:
    """Serve `rate_per_s` requests a second for `duration_s` seconds through an outage.

    The dependency is down for seconds in [`down_from_s`, `down_until_s`). With a
    `fallback`, the cached page is `cache_age_s` old when the outage starts (5 minutes
    in the lesson) and ages one second per second while the dependency stays down.
    """
    if duration_s < 0:
        raise ValueError(f"duration_s must be >= 0, got {duration_s}")
    if rate_per_s < 0:
        raise ValueError(f"rate_per_s must be >= 0, got {rate_per_s}")
    if down_until_s < down_from_s:
        raise ValueError(f"down_until_s must be >= down_from_s ({down_from_s}), got {down_until_s}")
    if cache_age_s < 0:
        raise ValueError(f"cache_age_s must be >= 0, got {cache_age_s}")
    seconds: list[DegradationSecond] = []
    for second in range(duration_s):
        down = down_from_s <= second < down_until_s
        # Only the outage ages the cache: while healthy the page shown is live.
        age = cache_age_s + (second - down_from_s) if fallback and down else None
        answer, shown_age = serve_with_fallback(not down, age, max_stale_s)
        # Every request in a second meets the same dependency, so they share an answer.
        full, degraded, error = (rate_per_s if answer == kind else 0 for kind in _ANSWERS)
        seconds.append(DegradationSecond(second, full, degraded, error, shown_age))
    total = duration_s * rate_per_s

    def share(kind: Answer) -> float:
        return sum(getattr(s, kind) for s in seconds) / total if total else 0.0

    return DegradationRun(seconds, share("full"), share("degraded"), share("error"))
