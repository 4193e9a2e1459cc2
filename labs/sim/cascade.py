"""One stuck dependency stalls a whole service, and the four tools that free it (Lesson 13).

Callers send requests to a service that has a fixed pool of threads. Some of its pages
need a dependency (the grades service), the rest do not. While the dependency is stuck,
every call to it holds a thread for as long as it hangs, so by Little's law the pool needs
rate × wait threads; once they are all held, even the pages that never touch the
dependency wait in line, their callers give up and try again, and the service answers
nobody. Four tools, added one at a time, each take away part of that:

- a **timeout** on the call to the dependency bounds how long a thread is held;
- **backoff with full jitter** spreads the callers' retries instead of sending them back
  at once (the busiest 10 ms slot of retries falls);
- a **circuit breaker** stops calling a dependency that keeps failing, so a call fails at
  once instead of holding a thread until its timeout;
- a **fallback** answers a page that needs the dependency from a cached copy, so a caller
  gets a useful (older) page instead of an error and does not retry.

The simulation is event by event, in whole milliseconds. Callers arrive at random
(`arrivals="random"`: the run's requests at independent uniform times, a Poisson stream
with its count fixed) or evenly spaced (`"even"`, the first version's). With even spacing
the callers' timeouts and retries are already spread, so backoff's jitter has nothing to
spread; random arrivals bunch, and so do their retries. Every random draw (arrival times,
which pages need the dependency, the jittered waits) comes from `seed`, so a run repeats
exactly.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Literal

StallKind = Literal["stuck", "down"]
STALL_KINDS: tuple[StallKind, ...] = ("stuck", "down")
Arrivals = Literal["random", "even"]
ARRIVALS: tuple[Arrivals, ...] = ("random", "even")

# How long a call to a dependency that is down (refusing connections) takes to fail.
DOWN_FAIL_MS = 0
RETRY_SLOT_MS = 10  # the width of the slot in which the lesson counts retries arriving together


@dataclass(frozen=True)
class CascadeSetup:
    """Everything one run depends on; the defaults are the lab's starting point."""

    rate_per_s: float = 100.0  # new requests a second from all callers
    duration_s: int = 60  # how long the callers keep sending
    threads: int = 120  # the service's thread pool
    queue_limit: int = 200  # requests that may wait for a thread; more are refused at once
    service_ms: int = 5  # the service's own work per request
    dependency_share: float = 0.5  # the share of pages that call the dependency
    dependency_ms: int = 50  # how long the dependency takes when it is healthy
    stall_from_s: int = 10
    stall_until_s: int = 40  # the first second the dependency is healthy again
    stall_kind: StallKind = "stuck"  # stuck: calls hang; down: calls fail at once
    stuck_ms: int = 30_000  # how long a call to a stuck dependency hangs before it errors
    caller_timeout_ms: int = 2_000  # a caller stops waiting for an answer after this
    caller_retries: int = 3  # how many times a caller tries again after a failure
    # The four tools.
    dependency_timeout_ms: int | None = None  # None: the service waits as long as the call hangs
    backoff: bool = False  # callers wait base × 2^attempt with full jitter before a retry
    backoff_base_ms: int = 100
    backoff_cap_ms: int = 3_200
    breaker: bool = False
    breaker_threshold: int = 5
    breaker_open_s: int = 10
    fallback: bool = False  # a page that needs the dependency answers from its cached copy
    arrivals: Arrivals = "even"  # the lab plays "random"; "even" keeps the first version's runs

    def __post_init__(self) -> None:
        if self.arrivals not in ARRIVALS:
            raise ValueError(f"arrivals must be one of {ARRIVALS}, got {self.arrivals!r}")
        _at_least("rate_per_s", self.rate_per_s, 0.001)
        _at_least("duration_s", self.duration_s, 1)
        _at_least("threads", self.threads, 1)
        _at_least("queue_limit", self.queue_limit, 0)
        _at_least("service_ms", self.service_ms, 0)
        if not 0 <= self.dependency_share <= 1:
            raise ValueError(f"dependency_share must be in [0, 1], got {self.dependency_share}")
        _at_least("dependency_ms", self.dependency_ms, 1)
        _at_least("stall_from_s", self.stall_from_s, 0)
        if self.stall_until_s < self.stall_from_s:
            raise ValueError(
                f"stall_until_s must be >= stall_from_s ({self.stall_from_s}), "
                f"got {self.stall_until_s}"
            )
        if self.stall_kind not in STALL_KINDS:
            raise ValueError(f"stall_kind must be one of {STALL_KINDS}, got {self.stall_kind!r}")
        _at_least("stuck_ms", self.stuck_ms, 1)
        _at_least("caller_timeout_ms", self.caller_timeout_ms, 1)
        _at_least("caller_retries", self.caller_retries, 0)
        if self.dependency_timeout_ms is not None:
            _at_least("dependency_timeout_ms", self.dependency_timeout_ms, 1)
        _at_least("backoff_base_ms", self.backoff_base_ms, 1)
        _at_least("backoff_cap_ms", self.backoff_cap_ms, self.backoff_base_ms)
        _at_least("breaker_threshold", self.breaker_threshold, 1)
        _at_least("breaker_open_s", self.breaker_open_s, 1)

    @property
    def attempts_bound(self) -> int:
        """The most attempts a run can make: every request tried 1 + retries times."""
        requests = int(self.rate_per_s * self.duration_s) + 1
        return requests * (1 + self.caller_retries)


def _at_least(name: str, value: float, low: float) -> None:
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


class PoolBreaker:
    """A circuit breaker for calls that are in flight together.

    Unlike `labs.sim.breaker.CircuitBreaker`, whose calls come one at a time and know
    their outcome at once, here a call asks `allow(t_ms)` when it starts and reports
    `record(t_ms, ok, trial)` when it ends, perhaps a timeout later. Failures in a row
    are counted as outcomes arrive. Once open, every call fails fast for `open_s`; then
    one trial call is let through (half-open) and every other call fails fast until the
    trial's outcome closes the breaker or opens it again.
    """

    def __init__(self, threshold: int, open_s: int) -> None:
        self.threshold = threshold
        self.open_ms = open_s * 1000
        self.state: Literal["closed", "open", "half-open"] = "closed"
        self.failures_in_a_row = 0
        self.opened_at_ms = 0
        self.opened = 0  # how many times it opened

    def state_at(self, t_ms: int) -> str:
        """What a call starting at `t_ms` would meet."""
        if self.state == "open" and t_ms - self.opened_at_ms >= self.open_ms:
            return "half-open"
        return self.state

    def allow(self, t_ms: int) -> tuple[bool, bool]:
        """(may the call go through, is it the trial)."""
        state = self.state_at(t_ms)
        if state == "closed":
            return True, False
        if state == "half-open" and self.state == "open":
            self.state = "half-open"  # the trial is now in flight: everyone else fails fast
            return True, True
        return False, False

    def record(self, t_ms: int, ok: bool, trial: bool) -> None:
        if trial:
            if ok:
                self.state, self.failures_in_a_row = "closed", 0
            else:
                self._open(t_ms)
            return
        if self.state != "closed":
            return  # a call that started before the breaker opened: it changes nothing now
        if ok:
            self.failures_in_a_row = 0
            return
        self.failures_in_a_row += 1
        if self.failures_in_a_row >= self.threshold:
            self._open(t_ms)

    def _open(self, t_ms: int) -> None:
        self.state, self.opened_at_ms, self.failures_in_a_row = "open", t_ms, 0
        self.opened += 1


@dataclass
class _Attempt:
    request: int
    number: int  # 0 for the first try
    sent_ms: int
    needs_dependency: bool
    settled: bool = False  # the caller has its answer, or has stopped waiting


@dataclass
class CascadeSecond:
    """What happened in one second of the run."""

    second: int
    new_requests: int = 0
    retries: int = 0
    ok: int = 0  # full answers a caller received in time
    fallback: int = 0  # cached answers a caller received in time
    errors: int = 0  # errors a caller received in time (the dependency failed, or a 503)
    gave_up: int = 0  # callers that stopped waiting
    own_pages_ok: int = 0  # answers in time to pages that never call the dependency
    own_pages_sent: int = 0
    wasted: int = 0  # answers that came after their caller had given up
    dependency_calls: int = 0  # calls that reached the dependency
    dependency_attempts: int = 0  # attempts sent for a page that needs it, retries included
    fast_fails: int = 0  # calls the breaker refused
    threads_busy: int = 0  # the most threads held at once in this second
    queued: int = 0  # the most requests waiting for a thread in this second
    breaker: str = "closed"  # the breaker's state at the end of the second

    @property
    def answered(self) -> int:
        """Answers a caller could use: full or cached."""
        return self.ok + self.fallback

    @property
    def good_share(self) -> float | None:
        """The share of this second's outcomes that a caller could use."""
        outcomes = self.answered + self.errors + self.gave_up
        return self.answered / outcomes if outcomes else None


@dataclass
class CascadeRun:
    setup: CascadeSetup
    seconds: list[CascadeSecond]
    requests: int
    attempts: int
    requests_failed: int  # requests whose every attempt failed
    busiest_retry_slot: int  # the most retries that arrived in one 10 ms slot
    breaker_opened: int
    peak_threads_busy: int
    peak_waiting_on_dependency: int  # Little's law: about (calls a second) × (seconds each waits)

    def during_stall(self) -> list[CascadeSecond]:
        s = self.setup
        return [x for x in self.seconds if s.stall_from_s <= x.second < s.stall_until_s]


def play_cascade(setup: CascadeSetup, seed: int = 13) -> CascadeRun:
    """Play `setup` event by event and count, second by second, what callers received."""
    sim = _Cascade(setup, random.Random(seed))
    return sim.play()


class _Cascade:
    """The event loop. Events are (time_ms, order, kind, payload), popped in time order."""

    def __init__(self, setup: CascadeSetup, rng: random.Random) -> None:
        self.s = setup
        self.rng = rng
        self.end_ms = setup.duration_s * 1000
        self.seconds = [CascadeSecond(i) for i in range(setup.duration_s)]
        self.events: list[tuple[int, int, str, object]] = []
        self.order = 0
        self.free_threads = setup.threads
        self.waiting: list[_Attempt] = []  # FIFO; a list is fine at these sizes
        self.waiting_head = 0
        self.breaker = (
            PoolBreaker(setup.breaker_threshold, setup.breaker_open_s) if setup.breaker else None
        )
        self.attempts = 0
        self.requests_failed = 0
        self.retry_slots: dict[int, int] = {}
        self.peak_threads_busy = 0
        self.on_dependency = 0  # calls in flight to the dependency right now
        self.peak_on_dependency = 0

    # -- bookkeeping -------------------------------------------------------------------
    def _push(self, t_ms: int, kind: str, payload: object) -> None:
        self.order += 1
        heapq.heappush(self.events, (t_ms, self.order, kind, payload))

    def _second(self, t_ms: int) -> CascadeSecond | None:
        i = t_ms // 1000
        return self.seconds[i] if i < len(self.seconds) else None

    def _note_load(self, t_ms: int) -> None:
        row = self._second(t_ms)
        busy = self.s.threads - self.free_threads
        self.peak_threads_busy = max(self.peak_threads_busy, busy)
        if row is not None:
            row.threads_busy = max(row.threads_busy, busy)
            row.queued = max(row.queued, len(self.waiting) - self.waiting_head)
            if self.breaker is not None:
                row.breaker = self.breaker.state_at(t_ms)

    def _stalled(self, t_ms: int) -> bool:
        return self.s.stall_from_s * 1000 <= t_ms < self.s.stall_until_s * 1000

    # -- the run -----------------------------------------------------------------------
    def play(self) -> CascadeRun:
        s = self.s
        gap_ms = 1000 / s.rate_per_s
        requests = int(s.rate_per_s * s.duration_s)
        if s.arrivals == "even":
            times = [int(i * gap_ms) for i in range(requests)]
        else:
            times = sorted(int(self.rng.uniform(0, self.end_ms)) for _ in range(requests))
        for i, at_ms in enumerate(times):
            needs = self.rng.random() < s.dependency_share
            self._push(at_ms, "send", _Attempt(i, 0, at_ms, needs))
        while self.events:
            t_ms, _, kind, payload = heapq.heappop(self.events)
            if t_ms >= self.end_ms:
                break
            getattr(self, "_on_" + kind)(t_ms, payload)
            self._note_load(t_ms)
        return CascadeRun(
            setup=s,
            seconds=self.seconds,
            requests=requests,
            attempts=self.attempts,
            requests_failed=self.requests_failed,
            busiest_retry_slot=max(self.retry_slots.values(), default=0),
            breaker_opened=self.breaker.opened if self.breaker else 0,
            peak_threads_busy=self.peak_threads_busy,
            peak_waiting_on_dependency=self.peak_on_dependency,
        )

    def _on_send(self, t_ms: int, attempt: _Attempt) -> None:
        self.attempts += 1
        row = self._second(t_ms)
        if row is not None:
            if attempt.needs_dependency:
                row.dependency_attempts += 1
            if attempt.number == 0:
                row.new_requests += 1
                if not attempt.needs_dependency:
                    row.own_pages_sent += 1
            else:
                row.retries += 1
                slot = t_ms // RETRY_SLOT_MS
                self.retry_slots[slot] = self.retry_slots.get(slot, 0) + 1
        self._push(t_ms + self.s.caller_timeout_ms, "caller_timeout", attempt)
        if self.free_threads:
            self._start(t_ms, attempt)
        elif len(self.waiting) - self.waiting_head < self.s.queue_limit:
            self.waiting.append(attempt)
        else:
            self._answer(t_ms, attempt, "error")  # 503: no thread and no room to wait

    def _start(self, t_ms: int, attempt: _Attempt) -> None:
        self.free_threads -= 1
        if attempt.needs_dependency:
            self._push(t_ms + self.s.service_ms, "call_dependency", attempt)
        else:
            self._push(t_ms + self.s.service_ms, "finish", (attempt, "ok", None))

    def _on_call_dependency(self, t_ms: int, attempt: _Attempt) -> None:
        s, row = self.s, self._second(t_ms)
        trial = False
        if self.breaker is not None:
            allowed, trial = self.breaker.allow(t_ms)
            if not allowed:
                if row is not None:
                    row.fast_fails += 1
                self._push(t_ms, "finish", (attempt, "failed", None))
                return
        if row is not None:
            row.dependency_calls += 1
        self.on_dependency += 1
        self.peak_on_dependency = max(self.peak_on_dependency, self.on_dependency)
        if not self._stalled(t_ms):
            wait_ms, ok = s.dependency_ms, True
        elif s.stall_kind == "down":
            wait_ms, ok = DOWN_FAIL_MS, False
        else:
            wait_ms, ok = s.stuck_ms, False
        if s.dependency_timeout_ms is not None and wait_ms > s.dependency_timeout_ms:
            wait_ms, ok = s.dependency_timeout_ms, False
        self._push(
            t_ms + wait_ms, "answer_from_dependency", (attempt, "ok" if ok else "failed", trial)
        )

    def _on_answer_from_dependency(self, t_ms: int, payload: tuple[_Attempt, str, bool]) -> None:
        self.on_dependency -= 1
        self._on_finish(t_ms, payload)

    def _on_finish(self, t_ms: int, payload: tuple[_Attempt, str, bool | None]) -> None:
        attempt, outcome, trial = payload
        if self.breaker is not None and trial is not None:
            self.breaker.record(t_ms, outcome == "ok", trial)
        self.free_threads += 1
        if self.waiting_head < len(self.waiting):
            nxt = self.waiting[self.waiting_head]
            self.waiting_head += 1
            self._start(t_ms, nxt)
        if outcome == "failed":
            outcome = "fallback" if self.s.fallback else "error"
        self._answer(t_ms, attempt, outcome)

    def _answer(self, t_ms: int, attempt: _Attempt, outcome: str) -> None:
        row = self._second(t_ms)
        if attempt.settled:
            if row is not None:
                row.wasted += 1
            return
        attempt.settled = True
        if row is not None:
            counter = "errors" if outcome == "error" else outcome
            setattr(row, counter, getattr(row, counter) + 1)
            if outcome == "ok" and not attempt.needs_dependency:
                row.own_pages_ok += 1
        if outcome == "error":
            self._try_again(t_ms, attempt)

    def _on_caller_timeout(self, t_ms: int, attempt: _Attempt) -> None:
        if attempt.settled:
            return
        attempt.settled = True
        row = self._second(t_ms)
        if row is not None:
            row.gave_up += 1
        self._try_again(t_ms, attempt)

    def _try_again(self, t_ms: int, attempt: _Attempt) -> None:
        s = self.s
        if attempt.number >= s.caller_retries:
            self.requests_failed += 1
            return
        wait_ms = 0
        if s.backoff:
            ceiling = min(s.backoff_cap_ms, s.backoff_base_ms * 2**attempt.number)
            wait_ms = int(self.rng.uniform(0, ceiling))
        nxt = _Attempt(
            attempt.request, attempt.number + 1, t_ms + wait_ms, attempt.needs_dependency
        )
        self._push(t_ms + wait_ms, "send", nxt)
