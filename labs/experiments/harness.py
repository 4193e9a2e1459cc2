"""What every experiment shares: its own namespace, a clock, a stop signal and a cleanup.

An experiment runs inside `with ExperimentSession(...) as run:`. Whatever happens inside (a
result, an error, a student pressing stop), leaving the block stops the run's workers and
samplers first and then deletes every key under the run's prefix.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import redis

from labs.experiments.dlq import keep_dead_letters
from labs.experiments.limits import MAX_WALL_S, check_float
from labs.experiments.namespace import DEFAULT_KEY_TTL_S, Namespace, connect
from labs.experiments.queue import RedisQueue

ShouldStop = Callable[[], bool]


class Stoppable(Protocol):
    def stop(self) -> object: ...


class ExperimentSession:
    """One experiment run on the shared Redis: a namespace, a connection and a time budget.

    (Not the Django model `labs.runs.models.Run`, the row a student's press makes: a session
    is the Redis side of one experiment, opened and closed by the worker that runs it.)

    `stopped()` is true once `should_stop()` says so or the run has used `max_wall_s`;
    experiments check it often and wind down, keeping what they measured so far.
    `namespace` (default: a fresh random one) is the prefix the run owns and deletes at the end.
    """

    def __init__(
        self,
        *,
        seed: int,
        url: str | None = None,
        should_stop: ShouldStop | None = None,
        max_wall_s: float = MAX_WALL_S,
        key_ttl_s: float = DEFAULT_KEY_TTL_S,
        namespace: Namespace | None = None,
    ) -> None:
        self.seed = seed
        self.url = url
        self.should_stop = should_stop
        self.max_wall_s = check_float("max_wall_s", max_wall_s, 0.1, MAX_WALL_S)
        # A caller that must find the keys again (to clean up after a killed process) names
        # the namespace; otherwise it is random. Its TTL then wins over `key_ttl_s`.
        self.ns = namespace or Namespace(ttl_s=key_ttl_s)
        self.stop_reason: str | None = None
        self.keys_left: int | None = None
        self._owned: list[Stoppable] = []
        self.t0 = time.monotonic()
        self.t0_wall = time.time()
        self.r: redis.Redis | None = None

    def __enter__(self) -> ExperimentSession:
        self.r = connect(self.url, name=f"{self.ns.prefix}main")
        self.t0 = time.monotonic()
        self.t0_wall = time.time()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            for thing in reversed(self._owned):
                thing.stop()
        finally:
            assert self.r is not None
            try:
                self.ns.cleanup(self.r)
                self.keys_left = len(self.ns.keys(self.r))
            finally:
                self.r.close()

    @property
    def redis(self) -> redis.Redis:
        """The run's own connection (workers and samplers open their own)."""
        assert self.r is not None, "use ExperimentSession inside a with block"
        return self.r

    def own(self, thing: Stoppable) -> Any:
        """Stop `thing` (a pool, a sampler) before the keys are cleaned; returns it."""
        self._owned.append(thing)
        return thing

    def elapsed_s(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.t0

    def stopped(self) -> bool:
        """True once the student asked to stop or the time cap is reached."""
        if self.stop_reason is None:
            if self.should_stop is not None and self.should_stop():
                self.stop_reason = "cancelled"
            elif self.elapsed_s() >= self.max_wall_s:
                self.stop_reason = "time cap"
        return self.stop_reason is not None

    def wait(self, seconds: float, step_s: float = 0.02) -> bool:
        """Sleep `seconds` in small steps; False as soon as the run is stopped."""
        return self.wait_until(lambda: False, seconds, step_s) or not self.stopped()

    def wait_until(
        self, condition: Callable[[], bool], timeout_s: float, step_s: float = 0.02
    ) -> bool:
        """Poll `condition` until it holds (True), or time runs out or the run stops (False)."""
        deadline = time.monotonic() + timeout_s
        while True:
            if condition():
                return True
            if self.stopped():
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(step_s, left))

    def settle(
        self,
        queue: RedisQueue,
        count: int,
        *parts: Stoppable,
        keep: Namespace | None = None,
        step_s: float = 0.02,
    ) -> float:
        """How a queue experiment ends: wait until `count` messages are settled (or the run
        stops or runs out of time), stop `parts` in order (the workers, then the sampler),
        and copy the DLQ into `keep`, the run's kept queue, when it has one.

        Returns when the wait ended (`time.monotonic`), for an experiment that times it.
        """
        self.wait_until(lambda: queue.stats().settled >= count, self.max_wall_s, step_s=step_s)
        ended = time.monotonic()
        for part in parts:
            part.stop()
        if keep is not None:
            keep_dead_letters(queue, keep)
        return ended

    def footer(self) -> dict[str, Any]:
        """The summary fields every experiment reports about the run itself."""
        return {
            "run_id": self.ns.run_id,
            "seed": self.seed,
            "wall_s": round(self.elapsed_s(), 3),
            "stopped_early": self.stop_reason is not None,
            "stop_reason": self.stop_reason or "",
        }


def finish(run: ExperimentSession, result: dict[str, Any]) -> dict[str, Any]:
    """Add the run's cleanup check to a result built inside the `with ExperimentSession` block."""
    result["summary"]["keys_left"] = run.keys_left
    return result
