"""Things that go wrong on purpose: a worker dying, poison messages, flaky or slow services.

Every failure is decided from the seed and the message, never from which thread got there
first, so a run with the same seed fails in the same places.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from labs.experiments.limits import check_float

CRASH_POINTS = ("after_receive", "after_effect")


class WorkerCrash(BaseException):
    """The worker process died here: no ack, no cleanup, its messages stay in flight.

    A BaseException, so a handler's `except Exception` cannot swallow the crash.
    """


class PoisonMessage(Exception):
    """A message no worker can ever handle (a broken PDF, a bad phone number)."""


class ServiceError(Exception):
    """A call to the stand-in outside service failed."""


@dataclass(frozen=True)
class CrashAt:
    """Kill the worker at the `delivery`-th delivery of the pool (0-based), at `point`.

    `after_receive`: before the effect. `after_effect`: the effect happened, the ack did not.
    Either way the message is still in flight and must come back after the visibility timeout.
    """

    delivery: int
    point: str = "after_effect"

    def __post_init__(self) -> None:
        if self.delivery < 0:
            raise ValueError(f"delivery must be >= 0, got {self.delivery}")
        if self.point not in CRASH_POINTS:
            raise ValueError(f"point must be one of {CRASH_POINTS}, got {self.point!r}")


class CrashPlan:
    """Which deliveries kill their worker, and where."""

    def __init__(self, crashes: Iterable[CrashAt] = ()) -> None:
        self._at = {(c.delivery, c.point) for c in crashes}

    @classmethod
    def random(
        cls, rng: random.Random, deliveries: int, count: int, point: str | None = None
    ) -> CrashPlan:
        """`count` crashes at distinct deliveries below `deliveries`, drawn from `rng`."""
        if not 0 <= count <= deliveries:
            raise ValueError(f"need 0 <= count <= deliveries, got {count} and {deliveries}")
        return cls(
            CrashAt(d, point or rng.choice(CRASH_POINTS))
            for d in sorted(rng.sample(range(deliveries), count))
        )

    def __len__(self) -> int:
        return len(self._at)

    def check(self, delivery: int, point: str) -> None:
        """Raise WorkerCrash if this delivery is planned to kill its worker at this point."""
        if (delivery, point) in self._at:
            raise WorkerCrash(f"worker died at delivery {delivery}, {point}")


class Poison:
    """Message ids that fail every time they are handled."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = frozenset(ids)

    def check(self, msg_id: str) -> None:
        """Raise PoisonMessage if `msg_id` is one of the poison ones."""
        if msg_id in self.ids:
            raise PoisonMessage(f"{msg_id}: cannot be processed")


class StandInService:
    """A pretend outside service (SMS gateway, payments) whose latency and failures we choose.

    - `latency_s`: every call takes this long (the provider's rate is 1 / latency per worker);
    - `fail_p`: each call fails with this probability, decided by (seed, call key), so the
      same seed fails the same calls whatever the thread timing;
    - `down`: a window (start_s, end_s) after `start()` in which every call fails.
    """

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        fail_p: float = 0.0,
        down: tuple[float, float] | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.latency_s = check_float("latency_s", latency_s, 0.0, 10.0)
        self.fail_p = check_float("fail_p", fail_p, 0.0, 1.0)
        if down is not None and not 0 <= down[0] <= down[1]:
            raise ValueError(
                f"down must be (start_s, end_s) with 0 <= start_s <= end_s, got {down}"
            )
        self.down = down
        self.seed = seed
        self._clock = clock
        self._sleep = sleep
        self._t0 = clock()
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0
        self.calls_while_down = 0
        self.ok_times: list[float] = []

    def start(self) -> None:
        """Start the clock the down window is measured from."""
        self._t0 = self._clock()

    @property
    def started_at(self) -> float:
        """The clock reading `start()` took (time.monotonic by default)."""
        return self._t0

    def elapsed_s(self) -> float:
        """Seconds since `start()`."""
        return self._clock() - self._t0

    def is_down(self) -> bool:
        """True while inside the down window."""
        if self.down is None:
            return False
        t = self.elapsed_s()
        return self.down[0] <= t < self.down[1]

    def call(self, key: str = "") -> None:
        """Make one call; raises ServiceError when down or when this call's draw fails."""
        down = self.is_down()
        if self.latency_s:
            self._sleep(self.latency_s)
        flaky = self.fail_p > 0 and random.Random(f"{self.seed}:{key}").random() < self.fail_p
        with self._lock:
            self.calls += 1
            if down:
                self.calls_while_down += 1
            if down or flaky:
                self.failures += 1
            else:
                self.ok_times.append(self.elapsed_s())
        if down:
            raise ServiceError("service unavailable (down window)")
        if flaky:
            raise ServiceError(f"service failed ({key})")
