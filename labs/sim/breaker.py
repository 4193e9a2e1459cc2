"""A circuit breaker in front of a sick dependency (Lesson 13).

After `threshold` failures in a row the breaker opens: calls fail fast, without
waiting on the dependency, for `open_s` seconds. Then one trial call goes through
(half-open): success closes the breaker, failure opens it for another `open_s`.
Time is whatever the caller passes in, so a run is fully repeatable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

State = Literal["closed", "open", "half-open"]
Outcome = Literal["ok", "failed", "fast-fail"]


class CircuitBreaker:
    """Counts failures in a row and stops calling a dependency that keeps failing.

    `call(t, dependency_ok)` asks the breaker to make one call at time `t` (seconds)
    to a dependency that is healthy or not at that moment, and returns

    - ``'ok'``: the call went through and the dependency answered;
    - ``'failed'``: the call went through and the dependency failed (the caller waited);
    - ``'fast-fail'``: the breaker was open and refused the call at once.

    `state` is what the last call left; `state_at(t)` is what a call at `t` would
    meet. Calls come one at a time, so the half-open state lasts exactly one call,
    the trial, which leaves the breaker closed or open.
    """

    def __init__(self, threshold: int = 5, open_s: float = 10) -> None:
        if threshold < 1:
            raise ValueError(f"threshold must be >= 1, got {threshold}")
        if open_s <= 0:
            raise ValueError(f"open_s must be > 0, got {open_s}")
        self.threshold = threshold
        self.open_s = open_s
        self._state: State = "closed"
        self.failures_in_a_row = 0
        self.opened_at_s: float | None = None
        self._last_t: float | None = None

    @property
    def state(self) -> State:
        """'closed', 'open' or 'half-open', as the last call left it."""
        return self._state

    def state_at(self, t: float) -> State:
        """The state a call arriving at `t` would meet, without making the call.

        An open breaker turns half-open once it has been open for `open_s` seconds.
        """
        opened_at_s = self.opened_at_s
        if self._state == "open" and opened_at_s is not None and t - opened_at_s >= self.open_s:
            return "half-open"
        return self._state

    def call(self, t: float, dependency_ok: bool) -> Outcome:
        """Make one call at time `t` (seconds) and say what became of it."""
        if self._last_t is not None and t < self._last_t:
            raise ValueError(f"t must be >= the previous call's t ({self._last_t}), got {t}")
        self._last_t = t
        self._state = self.state_at(t)
        if self._state == "open":
            return "fast-fail"
        if dependency_ok:
            self._state = "closed"
            self.failures_in_a_row = 0
            return "ok"
        self.failures_in_a_row += 1
        # A failed trial reopens at once: the breaker already knows the dependency is sick.
        if self._state == "half-open" or self.failures_in_a_row >= self.threshold:
            self._state = "open"
            self.opened_at_s = t
            self.failures_in_a_row = 0  # the next closed spell counts afresh
        return "failed"


class BreakerCall(NamedTuple):
    """One call in a played outage: when, what became of it, the state it left."""

    t: float
    outcome: Outcome
    state: State
    trial: bool  # True for a half-open trial call


@dataclass(frozen=True)
class BreakerRun:
    """A played outage: the call log and the figures the lesson prints from it."""

    calls: list[BreakerCall]
    ok: int
    failed: int  # calls that reached the sick service and waited on it
    fast_fail: int
    fast_fail_while_down: int
    first_ok_s: float | None  # None when no call succeeded
    final_state: State


def play_breaker(
    threshold: int = 5,
    open_s: float = 10,
    down_from_s: float = 0,
    down_until_s: float = 30,
    duration_s: int = 40,
) -> BreakerRun:
    """Call a dependency once a second for `duration_s` seconds, through a breaker.

    The dependency fails for t in [`down_from_s`, `down_until_s`) and answers
    otherwise; calls happen at t = 0, 1, ..., `duration_s` - 1. The lesson's run is
    the default: down for the first 30 s, called for 40 s.
    """
    if duration_s < 0:
        raise ValueError(f"duration_s must be >= 0, got {duration_s}")
    if down_until_s < down_from_s:
        raise ValueError(f"down_until_s must be >= down_from_s ({down_from_s}), got {down_until_s}")
    breaker = CircuitBreaker(threshold, open_s)
    calls: list[BreakerCall] = []
    for t in range(duration_s):
        trial = breaker.state_at(t) == "half-open"
        down = down_from_s <= t < down_until_s
        outcome = breaker.call(t, not down)
        calls.append(BreakerCall(t, outcome, breaker.state, trial))
    outcomes = [c.outcome for c in calls]
    return BreakerRun(
        calls=calls,
        ok=outcomes.count("ok"),
        failed=outcomes.count("failed"),
        fast_fail=outcomes.count("fast-fail"),
        fast_fail_while_down=sum(
            1 for c in calls if c.outcome == "fast-fail" and down_from_s <= c.t < down_until_s
        ),
        first_ok_s=next((c.t for c in calls if c.outcome == "ok"), None),
        final_state=breaker.state,
    )
