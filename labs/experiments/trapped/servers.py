"""The service's workers: threads that take a request, spend its service time, and answer.

Two kinds share one queue: ordinary workers take the oldest request (and, while "drop
expired" is on, throw away the ones whose caller has gone, spending `drop_cost_ms` on
each); reserved workers take only the newest request, and only while its caller still
waits. The trigger takes workers away and the operator moves some to the reserve, so the
pool runs a thread per possible slot and a slot past the wanted size sits idle.

Why not `labs.experiments.workers.WorkerPool`: its receive / handle / acknowledge steps
are three round trips a request. Here a worker answers the request it finished and takes
the next in one script (`ServiceQueue.next`), and waits for work with a blocking pop: on a
busy two-core machine every wake-up costs, and the service's real capacity depends on it.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from labs.experiments.namespace import connect
from labs.experiments.trapped.controls import ControlState
from labs.experiments.trapped.service import Next, Request, ServiceQueue
from labs.experiments.trapped.tally import Tally
from labs.sim.capstone.trapped_params import TrappedParams

POP_WAIT_S = 0.05  # an idle worker's blocking wait; it looks at the stop signal in between
FRESH_POLL_S = 0.002  # a reserved worker with nothing fresh to take looks again after this
PARKED_WAIT_S = 0.2  # a slot past the wanted size checks again after this
CATCH_UP = 4  # mean service times a stalled busy worker may make up (see `_run`)


class Servers:
    """`workers` ordinary slots and `workers - 1` reserve slots, sized with `resize`."""

    def __init__(
        self,
        queue: ServiceQueue,
        p: TrappedParams,
        *,
        time_scale: float,
        seed: int,
        controls: Callable[[], ControlState],
        slowdown: Callable[[], float],
        tally: Tally,
        url: str | None = None,
    ) -> None:
        self.queue = queue
        self.p = p
        self.scale = time_scale
        self.seed = seed
        self.controls = controls
        self.slowdown = slowdown
        self.tally = tally
        self.url = url
        self.errors: list[str] = []
        # Redis ms of the first worker step (and the first discard) made under each version
        # of the controls: when a command first acted on the queue, for the timeline.
        self.first_step_ms: dict[int, int] = {}
        self.first_discard_ms: dict[int, int] = {}
        self.wanted = {"oldest": p.workers, "fresh": 0}
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ready = threading.Semaphore(0)
        self.delay_ms = round(p.reconcile_delay_s * 1000 * time_scale)

    def start(self) -> Servers:
        slots = [("oldest", i) for i in range(self.p.workers)]
        slots += [("fresh", i) for i in range(self.p.workers - 1)]
        for kind, index in slots:
            thread = threading.Thread(
                target=self._run, args=(kind, index), name=f"{kind}{index}", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        return self

    def wait_ready(self, timeout_s: float = 10.0) -> bool:
        """Wait until every worker has its connection, so the clock starts with all of them."""
        deadline = time.monotonic() + timeout_s
        for _ in self._threads:
            if not self._ready.acquire(timeout=max(0.0, deadline - time.monotonic())):
                return False
        return True

    def resize(self, oldest: int, fresh: int) -> None:
        """Run `oldest` ordinary and `fresh` reserved workers from now on."""
        with self._changed:
            self.wanted = {"oldest": oldest, "fresh": fresh}
            self._changed.notify_all()

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(5.0)

    def _run(self, kind: str, index: int) -> None:
        r = connect(self.url, name=f"{self.queue.ns.prefix}{kind}{index}")
        queue = self.queue.with_client(r)
        rng = random.Random(f"{self.seed}:{kind}{index}")
        try:
            r.ping()
        finally:
            self._ready.release()
        held: tuple[Request, float] | None = None
        # The worker's clock: when its current request is done. A worker held up by a busy
        # CPU or a slow round trip may make up at most `CATCH_UP` mean service times of it,
        # so its capacity stays what the params say without a long burst after a stall.
        slack_s = CATCH_UP * self.p.service_ms / 1000.0 * self.scale
        free_at = time.monotonic()
        try:
            while not self._stop.is_set():
                if index >= self.wanted[kind]:
                    if held is not None:
                        self._answered(queue.next(held[0], take=False), held[1])
                        held = None
                    with self._changed:
                        self._changed.wait(PARKED_WAIT_S)
                    continue
                busy = held is not None  # straight from one request to the next
                request = self._take(queue, kind, held)
                held = None
                if request is None:
                    continue
                work_s = self.p.service_ms / 1000.0 * self.slowdown()
                if self.p.service_dist == "exponential":
                    work_s *= -math.log(1.0 - rng.random())
                now = time.monotonic()
                start = max(free_at, now - slack_s) if busy else now
                free_at = start + work_s * self.scale
                time.sleep(max(0.0, free_at - time.monotonic()))  # the real work
                held = (request, work_s)
            if held is not None:
                self._answered(queue.next(held[0], take=False), held[1])
        except Exception as error:  # a bug, not a planned fault: kept for the report
            self.errors.append(f"{kind}{index}: {error!r}")
        finally:
            r.close()

    def _take(
        self, queue: ServiceQueue, kind: str, held: tuple[Request, float] | None
    ) -> Request | None:
        """Answer the held request and take the next; wait a little if there is none."""
        ctl = self.controls()
        options: dict[str, Any] = {
            "dropping": ctl.drop_expired,
            "payments_may_go": ctl.payments_may_go,
            "reconcile": ctl.reconcile_payments,
            "reconcile_delay_ms": self.delay_ms,
        }
        step = queue.next(None if held is None else held[0], fresh=kind == "fresh", **options)
        self._answered(step, 0.0 if held is None else held[1], ctl.version)
        if step.request is not None or step.discarded:
            return step.request
        if kind == "fresh":
            time.sleep(FRESH_POLL_S)
            return None
        popped = queue.pop_oldest(POP_WAIT_S)
        if popped is None:
            return None
        step = queue.next(None, popped=popped, **options)
        self._answered(step, 0.0, ctl.version)
        return step.request

    def _answered(self, step: Next, work_s: float, version: int = -1) -> None:
        self.first_step_ms.setdefault(version, step.now_ms)
        if step.answered:
            self.tally.answered(
                step.useful, step.latency_ms / self.scale, step.call_ms / self.scale, work_s
            )
        if step.discarded:
            self.first_discard_ms.setdefault(version, step.now_ms)
            cost_s = self.p.drop_cost_ms / 1000.0 * step.discarded
            self.tally.dropped(step.discarded, step.discarded_payments, cost_s)
            time.sleep(cost_s * self.scale)  # checking and discarding costs a little time
