"""How long to wait before each retry, with and without jitter (Lesson 13).

Exponential backoff gives a struggling service more room after each failure. Jitter
adds a random part so that clients which failed together do not come back together.
Every random draw comes from a `random.Random` the caller passes in, so a seed
repeats a run exactly.
"""

from __future__ import annotations

import math
import random
from typing import Literal

Jitter = Literal["none", "full", "equal", "decorrelated"]
JITTERS: tuple[Jitter, ...] = ("none", "full", "equal", "decorrelated")


def _check_limits(base_ms: float, cap_ms: float) -> None:
    if base_ms <= 0:
        raise ValueError(f"base_ms must be > 0, got {base_ms}")
    if cap_ms < base_ms:
        raise ValueError(f"cap_ms must be >= base_ms ({base_ms}), got {cap_ms}")


def _check_jitter(jitter: str | None, rng: random.Random | None) -> Jitter:
    kind = "none" if jitter is None else jitter
    if kind not in JITTERS:
        raise ValueError(f"jitter must be one of {', '.join(JITTERS)} or None, got {jitter!r}")
    if kind != "none" and rng is None:
        # A hidden global generator would make runs impossible to repeat.
        raise ValueError(f"rng is required for {kind!r} jitter: pass a seeded random.Random")
    return kind


def _ceiling_ms(attempt: int, base_ms: float, cap_ms: float) -> float:
    # Compare exponents first so a huge attempt never builds a huge number.
    if attempt >= math.log2(cap_ms / base_ms):
        return cap_ms
    return min(cap_ms, base_ms * 2**attempt)


def backoff_ms(
    attempt: int,
    base_ms: float = 100,
    cap_ms: float = 3200,
    jitter: Jitter | None = None,
    rng: random.Random | None = None,
    *,
    previous_ms: float | None = None,
) -> float:
    """The wait before retry number `attempt` (0 is the first retry), in milliseconds.

    Without jitter it is `min(cap_ms, base_ms * 2 ** attempt)`: 100, 200, 400, ... 3200.
    With jitter it is drawn from `rng`:

    - ``'full'``: anywhere from 0 to the ceiling — spreads clients the most;
    - ``'equal'``: half the ceiling plus a random half — never retries too soon;
    - ``'decorrelated'``: between `base_ms` and three times the previous wait, capped.
      It depends on the previous wait, not on `attempt`, so after the first retry you
      must pass `previous_ms`; `backoff_schedule` does that bookkeeping for you.
    """
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt}")
    _check_limits(base_ms, cap_ms)
    kind = _check_jitter(jitter, rng)
    if kind != "decorrelated" and previous_ms is not None:
        raise ValueError(f"previous_ms is only used by 'decorrelated' jitter, not {kind!r}")
    if kind == "none":
        return _ceiling_ms(attempt, base_ms, cap_ms)
    assert rng is not None  # _check_jitter refuses jitter without a generator
    if kind == "decorrelated":
        if previous_ms is None:
            if attempt > 0:
                raise ValueError(
                    "previous_ms is required for 'decorrelated' jitter after attempt 0 "
                    "(or use backoff_schedule)"
                )
            previous_ms = base_ms
        if previous_ms < base_ms:
            raise ValueError(f"previous_ms must be >= base_ms ({base_ms}), got {previous_ms}")
        return min(cap_ms, rng.uniform(base_ms, 3 * previous_ms))
    ceiling = _ceiling_ms(attempt, base_ms, cap_ms)
    if kind == "full":
        return rng.uniform(0, ceiling)
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def backoff_schedule(
    attempts: int,
    base_ms: float = 100,
    cap_ms: float = 3200,
    jitter: Jitter | None = None,
    rng: random.Random | None = None,
) -> list[float]:
    """The waits before retries 0 .. `attempts` - 1 of one client, in milliseconds.

    Works the same for every jitter kind; for ``'decorrelated'`` each wait is fed the
    one before it. The draws are taken from `rng` in retry order.
    """
    if attempts < 0:
        raise ValueError(f"attempts must be >= 0, got {attempts}")
    _check_limits(base_ms, cap_ms)
    kind = _check_jitter(jitter, rng)
    waits: list[float] = []
    for attempt in range(attempts):
        previous = (waits[-1] if waits else None) if kind == "decorrelated" else None
        waits.append(backoff_ms(attempt, base_ms, cap_ms, kind, rng, previous_ms=previous))
    return waits
