"""A circuit breaker whose state lives in Redis, so every worker trips and resets it together.

The state machine is pybreaker's (closed -> open after `fail_max` failures in a row ->
half-open after `reset_timeout_s` -> closed on a good trial call). Only the storage is ours.
pybreaker ships `CircuitRedisStorage`, but for this lab it falls short in three ways:

1. it stores the moment the breaker opened in whole seconds, so a breaker with a 1 s reset
   timeout may half-open anywhere from 0 to 1 s after it opened: the lesson's timeline
   would be wrong at the time scales a lab runs at. We keep milliseconds;
2. it writes keys with plain SET and no TTL, so a run that dies leaves them forever. Ours
   carry the run's TTL on every write;
3. it keeps no history. Ours appends every real state change, with its time, to a Redis list:
   the breaker's actual timeline, whichever worker caused each change.

Each worker must build its own `CircuitBreaker` on the shared storage: a pybreaker breaker
holds a lock for the whole duration of a call, so one instance shared by threads would let
only one worker call the dependency at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import pybreaker
import redis

from labs.experiments.limits import check_float, check_int
from labs.experiments.namespace import Namespace

STATES = (pybreaker.STATE_CLOSED, pybreaker.STATE_HALF_OPEN, pybreaker.STATE_OPEN)

# KEYS: state, fails, successes. ARGV: initial state, ttl_ms.
_INIT = """
redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
redis.call('SET', KEYS[2], 0, 'NX', 'PX', ARGV[2])
redis.call('SET', KEYS[3], 0, 'NX', 'PX', ARGV[2])
"""

# KEYS: state, log. ARGV: new state, time (epoch s), ttl_ms.
_SET_STATE = """
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
if old ~= ARGV[1] then
  redis.call('RPUSH', KEYS[2], ARGV[2] .. ' ' .. ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
"""

# KEYS: counter. ARGV: ttl_ms.
_INCR = """
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
"""

# KEYS: opened_at. ARGV: time (epoch s), ttl_ms. Keeps the latest time if workers race.
_SET_OPENED = """
local old = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > old then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
"""


class RedisBreakerStorage(pybreaker.CircuitBreakerStorage):
    """One breaker's state, failure count and open time, kept in Redis under the run's prefix."""

    def __init__(
        self,
        r: redis.Redis,
        namespace: Namespace,
        name: str = "dependency",
        *,
        state: str = pybreaker.STATE_CLOSED,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(name)
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {state!r}")
        self.r = r
        self.ns = namespace
        self._clock = clock
        self._state_key = namespace.key("breaker", name, "state")
        self._fails_key = namespace.key("breaker", name, "fails")
        self._successes_key = namespace.key("breaker", name, "successes")
        self._opened_key = namespace.key("breaker", name, "opened_at")
        self._log_key = namespace.key("breaker", name, "log")
        self._init = r.register_script(_INIT)
        self._set_state = r.register_script(_SET_STATE)
        self._incr = r.register_script(_INCR)
        self._set_opened = r.register_script(_SET_OPENED)
        self._init(
            keys=[self._state_key, self._fails_key, self._successes_key],
            args=[state, namespace.ttl_ms],
        )

    @property
    def state(self) -> str:
        """The shared state; a missing key (expired, cleaned) reads as closed, as pybreaker does."""
        raw = self.r.get(self._state_key)
        if raw is None:
            self._init(
                keys=[self._state_key, self._fails_key, self._successes_key],
                args=[pybreaker.STATE_CLOSED, self.ns.ttl_ms],
            )
            return pybreaker.STATE_CLOSED
        return raw.decode()

    @state.setter
    def state(self, state: str) -> None:
        self._set_state(
            keys=[self._state_key, self._log_key],
            args=[state, f"{self._clock():.4f}", self.ns.ttl_ms],
        )

    def increment_counter(self) -> None:
        self._incr(keys=[self._fails_key], args=[self.ns.ttl_ms])

    def reset_counter(self) -> None:
        self.r.set(self._fails_key, 0, px=self.ns.ttl_ms)

    def increment_success_counter(self) -> None:
        self._incr(keys=[self._successes_key], args=[self.ns.ttl_ms])

    def reset_success_counter(self) -> None:
        self.r.set(self._successes_key, 0, px=self.ns.ttl_ms)

    @property
    def counter(self) -> int:
        return int(self.r.get(self._fails_key) or 0)

    @property
    def success_counter(self) -> int:
        return int(self.r.get(self._successes_key) or 0)

    @property
    def opened_at(self) -> datetime | None:
        raw = self.r.get(self._opened_key)
        return None if raw is None else datetime.fromtimestamp(float(raw), UTC)

    @opened_at.setter
    def opened_at(self, now: datetime) -> None:
        self._set_opened(keys=[self._opened_key], args=[f"{now.timestamp():.4f}", self.ns.ttl_ms])

    def timeline(self) -> list[tuple[float, str]]:
        """Every state change so far as (epoch seconds, state), oldest first."""
        rows = []
        for raw in self.r.lrange(self._log_key, 0, -1):
            t, state = raw.decode().split(" ", 1)
            rows.append((float(t), state))
        return rows


def shared_breaker(
    r: redis.Redis,
    namespace: Namespace,
    *,
    name: str = "dependency",
    fail_max: int = 5,
    reset_timeout_s: float = 10.0,
    clock: Callable[[], float] = time.time,
) -> pybreaker.CircuitBreaker:
    """A pybreaker breaker for one worker, whose state is shared with every other through Redis.

    Defaults are the lesson's: open after 5 failures in a row, try again after 10 s.
    `clock` times the state changes in the timeline (a test gives its own).
    """
    check_int("fail_max", fail_max, 1, 1000)
    check_float("reset_timeout_s", reset_timeout_s, 0.01, 3600.0)
    return pybreaker.CircuitBreaker(
        fail_max=fail_max,
        reset_timeout=reset_timeout_s,
        state_storage=RedisBreakerStorage(r, namespace, name, clock=clock),
        name=name,
    )
