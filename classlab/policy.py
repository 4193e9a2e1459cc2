"""What a phone does when one of its requests times out or is refused: the client policies.

Pure (no Django, no Redis), so the server applies exactly these rules to every phone and
the tests can check them with made-up times. Time is whatever the caller passes, in
milliseconds. The waits come from `labs.sim.backoff` and the breaker is
`labs.sim.breaker.CircuitBreaker`: the same models the Lesson 13 labs draw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from labs.sim.backoff import backoff_ms
from labs.sim.breaker import CircuitBreaker

Policy = Literal["none", "immediate", "backoff", "jitter", "budget", "breaker"]
POLICIES: tuple[Policy, ...] = ("none", "immediate", "backoff", "jitter", "budget", "breaker")

MAX_RETRIES = 4  # retries of one request, whatever the policy (the first send not counted)
BASE_MS = 500.0  # the first backoff ceiling
CAP_MS = 8000.0  # the longest backoff
BUDGET_PER_ORIGINAL = 0.1  # a retry budget earns one retry for every ten first sends
BUDGET_MAX = 3.0  # and saves at most three
BREAKER_THRESHOLD = 3  # failures in a row that open a phone's breaker
BREAKER_OPEN_S = 5.0  # how long it stays open before one trial request


def check_policy(policy: str) -> Policy:
    """`policy` if it is one of `POLICIES`; else a ValueError naming them."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    return policy


@dataclass
class Retry:
    """A retry waiting for its moment: the request it repeats and its attempt number."""

    origin: str
    attempt: int  # 1 for the first retry
    due_ms: int


@dataclass
class ClientState:
    """One phone's memory between its requests: waiting retries, budget, breaker."""

    tokens: float = 0.0
    waiting: list[Retry] = field(default_factory=list)
    breaker_failures: int = 0
    breaker_state: str = "closed"
    breaker_opened_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "waiting": [[w.origin, w.attempt, w.due_ms] for w in self.waiting],
            "bf": self.breaker_failures,
            "bs": self.breaker_state,
            "bo": self.breaker_opened_ms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClientState:
        return cls(
            tokens=float(data.get("tokens", 0.0)),
            waiting=[Retry(str(o), int(a), int(d)) for o, a, d in data.get("waiting", [])],
            breaker_failures=int(data.get("bf", 0)),
            breaker_state=str(data.get("bs", "closed")),
            breaker_opened_ms=data.get("bo"),
        )


def _breaker(state: ClientState) -> CircuitBreaker:
    """The phone's breaker as `labs.sim.breaker` models it, rebuilt from what was saved."""
    breaker = CircuitBreaker(BREAKER_THRESHOLD, BREAKER_OPEN_S)
    breaker._state = state.breaker_state  # type: ignore[assignment]
    breaker.failures_in_a_row = state.breaker_failures
    breaker.opened_at_s = (
        None if state.breaker_opened_ms is None else state.breaker_opened_ms / 1000
    )
    return breaker


def _keep_breaker(state: ClientState, breaker: CircuitBreaker) -> None:
    state.breaker_state = breaker.state
    state.breaker_failures = breaker.failures_in_a_row
    opened = breaker.opened_at_s
    state.breaker_opened_ms = None if opened is None else round(opened * 1000)


def breaker_state_at(state: ClientState, now_ms: int) -> str:
    """'closed', 'open' or 'half-open': what a send at `now_ms` would meet."""
    return _breaker(state).state_at(now_ms / 1000)


def note_original(policy: Policy, state: ClientState) -> None:
    """A first send: a retry budget earns its share of a retry."""
    if policy == "budget":
        state.tokens = min(BUDGET_MAX, round(state.tokens + BUDGET_PER_ORIGINAL, 6))


def note_outcome(policy: Policy, state: ClientState, now_ms: int, ok: bool) -> None:
    """An answer (ok) or a timeout/refusal (not ok) reached the phone: the breaker counts it."""
    if policy != "breaker":
        return
    breaker = _breaker(state)
    # The breaker's clock only goes forward; outcomes are settled in the order they land.
    t = max(now_ms / 1000, breaker._last_t or 0.0)
    if breaker.state_at(t) == "open":
        return  # an old request's news while open changes nothing: the breaker waits
    breaker.call(t, ok)
    _keep_breaker(state, breaker)


def plan_retry(
    policy: Policy, state: ClientState, origin: str, attempt: int, now_ms: int, rng: random.Random
) -> Retry | None:
    """After failed attempt `attempt` (0 = the first send) of `origin`: the retry, or None.

    none: never; immediate: at once; backoff: after min(cap, base * 2**attempt);
    jitter: a uniform draw below that (full jitter); budget: at once, only while the
    budget holds a whole retry; breaker: at once, and the breaker decides at sending time.
    """
    if policy == "none" or attempt >= MAX_RETRIES:
        return None
    wait = 0.0
    if policy == "backoff":
        wait = backoff_ms(attempt, BASE_MS, CAP_MS)
    elif policy == "jitter":
        wait = backoff_ms(attempt, BASE_MS, CAP_MS, "full", rng)
    elif policy == "budget":
        if state.tokens < 1.0:
            return None
        state.tokens -= 1.0
    retry = Retry(origin, attempt + 1, now_ms + round(wait))
    state.waiting.append(retry)
    return retry


def due_retries(state: ClientState, now_ms: int) -> list[Retry]:
    """Take the retries whose moment has come, oldest first."""
    due = sorted((w for w in state.waiting if w.due_ms <= now_ms), key=lambda w: w.due_ms)
    state.waiting = [w for w in state.waiting if w.due_ms > now_ms]
    return due


def may_send(policy: Policy, state: ClientState, now_ms: int) -> bool:
    """False when the phone's breaker is open: the request fails at once, never sent."""
    if policy != "breaker":
        return True
    return breaker_state_at(state, now_ms) != "open"
