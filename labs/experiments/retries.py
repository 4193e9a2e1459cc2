"""Retries with exponential backoff and full jitter, through tenacity (Lesson 13).

The wait before retry n is a random time in [0, min(cap, base * 2**(n-1))): "full jitter",
so clients that failed together do not all come back in the same instant. The draws come
from a `random.Random` passed in, so a run can be repeated under its seed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import tenacity

from labs.experiments.limits import check_float, check_int


def backoff_ceiling_s(attempt: int, base_s: float, cap_s: float) -> float:
    """The longest wait after failed attempt `attempt` (1-based): min(cap, base * 2**(n-1))."""
    return min(cap_s, base_s * 2 ** (attempt - 1))


class FullJitter(tenacity.wait.wait_base):
    """tenacity wait strategy: a uniform draw in [0, min(cap_s, base_s * 2**(attempt-1)))."""

    def __init__(self, base_s: float, cap_s: float, rng: random.Random) -> None:
        self.base_s = check_float("base_s", base_s, 0.0, 60.0)
        self.cap_s = check_float("cap_s", cap_s, 0.0, 60.0)
        self.rng = rng

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        high = backoff_ceiling_s(retry_state.attempt_number, self.base_s, self.cap_s)
        return self.rng.uniform(0.0, high)


def retrying(
    *,
    attempts: int,
    base_s: float,
    cap_s: float,
    rng: random.Random,
    retry_on: tuple[type[BaseException], ...] = (Exception,),
    on_wait: Callable[[float], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tenacity.Retrying:
    """A tenacity `Retrying`: up to `attempts` tries, full-jitter waits, the last error re-raised.

    `on_wait(seconds)` is told every wait before it is slept, for the lab's counts.
    """
    check_int("attempts", attempts, 1, 20)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        if on_wait is not None and state.next_action is not None:
            on_wait(state.next_action.sleep)

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(attempts),
        wait=FullJitter(base_s, cap_s, rng),
        retry=tenacity.retry_if_exception_type(retry_on),
        before_sleep=before_sleep,
        sleep=sleep,
        reraise=True,
    )
