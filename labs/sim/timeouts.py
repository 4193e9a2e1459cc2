"""Why every remote call needs a stopwatch (Lesson 13).

A caller that waits for a stuck service keeps a thread busy the whole time. Little's
law turns that wait into a head count: how many requests are stuck at once.
"""

from __future__ import annotations

from typing import Literal

Outcome = Literal["ok", "timeout"]


def littles_law(rate: float, wait_s: float) -> float:
    """How many requests are in flight when `rate` arrive per second and each stays `wait_s`.

    This is Little's law, L = λ × W: at 2,000 requests a second, a 30 s wait holds
    60,000 of them at once, and a 1 s timeout caps that at 2,000.
    """
    if rate < 0:
        raise ValueError(f"rate must be >= 0 (requests per second), got {rate}")
    if wait_s < 0:
        raise ValueError(f"wait_s must be >= 0, got {wait_s}")
    return rate * wait_s


def call_with_timeout(latency_ms: float, timeout_ms: float) -> tuple[Outcome, float]:
    """Call a service that answers after `latency_ms`, giving up after `timeout_ms`.

    Returns `('ok', latency_ms)` when the answer comes in time, otherwise
    `('timeout', timeout_ms)`: the second item is how long the caller was held,
    which is the point of a timeout. An answer landing exactly on the deadline counts
    as in time.
    """
    if latency_ms < 0:
        raise ValueError(f"latency_ms must be >= 0, got {latency_ms}")
    if timeout_ms <= 0:
        raise ValueError(f"timeout_ms must be > 0, got {timeout_ms}")
    if latency_ms <= timeout_ms:
        return ("ok", latency_ms)
    return ("timeout", timeout_ms)
