"""The service's callers: Poisson arrivals, a real timeout per attempt, retries with backoff.

One thread plays every caller, the way a load generator does: it keeps the callers' timers
(next arrival, each attempt's deadline, each backoff) and every few milliseconds sends the
attempts that are due in one round trip and gives up on the ones whose deadline passed.
The timeout is real: an attempt whose deadline passes is abandoned whatever happens to it
later, and a worker that answers it afterwards has worked for nobody.

Times: the model's (`labs.sim.capstone`) params are in model seconds; one model second
lasts `time_scale` seconds of wall time here, so every rate is divided and every duration
multiplied by it.
"""

from __future__ import annotations

import heapq
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from labs.experiments.namespace import connect
from labs.experiments.trapped.controls import ControlState
from labs.experiments.trapped.service import ADMITTED, FULL_503, ServiceQueue
from labs.experiments.trapped.tally import Tally
from labs.sim.capstone.engine import ADMISSION_BURST_S, RETRY_WINDOW_S
from labs.sim.capstone.trapped_params import TrappedParams

TICK_S = 0.002  # the callers' timer resolution in wall time
MAX_SEND_BATCH = 400  # attempts per round trip


class Call:
    """One caller's request across its attempts."""

    __slots__ = ("attempts", "call_id", "first_ms", "operation_id", "registered")

    def __init__(self, call_id: int, operation_id: str) -> None:
        self.call_id = call_id
        self.attempts = 0
        self.operation_id = operation_id  # '' for a read
        self.registered = False  # the payment is in the ledger
        self.first_ms = 0  # Redis ms of its first attempt, once sent


class Callers:
    """The thread that plays every caller against the service."""

    def __init__(
        self,
        queue: ServiceQueue,
        p: TrappedParams,
        *,
        time_scale: float,
        seed: int,
        controls: Callable[[], ControlState],
        tally: Tally,
        t0: float,
        url: str | None = None,
    ) -> None:
        self.queue = queue
        self.p = p
        self.scale = time_scale
        self.rng = random.Random(f"{seed}:callers")
        self.controls = controls
        self.tally = tally
        self.t0 = t0
        self.url = url
        self.timeout_wall_s = p.client_timeout_ms / 1000.0 * time_scale
        self.timeout_ms = max(1, round(p.client_timeout_ms * time_scale))
        self.delay_ms = round(p.reconcile_delay_s * 1000 * time_scale)
        self.attempts_per_call = p.attempts_per_call
        self.errors: list[str] = []
        self.calls = 0
        self.payments = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Timers, in model seconds (arrivals, backoffs) or wall time (deadlines, which all
        # have the same length and so fall due in the order attempts were sent).
        self._next_arrival = 0.0
        self._redraw = True
        self._retries: list[tuple[float, int, Call]] = []
        self._deadlines: deque[tuple[float, str, Call]] = deque()
        self._budget_tokens = 0.0
        self._budget_on = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Callers:
        self._thread = threading.Thread(target=self._run, name="callers", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)

    def _run(self) -> None:
        r = connect(self.url, name=f"{self.queue.ns.prefix}callers")
        queue = self.queue.with_client(r)
        try:
            while not self._stop.is_set():
                self._step(queue)
                time.sleep(TICK_S)
        except Exception as error:  # kept for the report and the tests: a bug, not a fault
            self.errors.append(repr(error))
        finally:
            r.close()

    # -- one step of every caller ------------------------------------------------------------

    def model_now(self) -> float:
        return (time.monotonic() - self.t0) / self.scale

    def _step(self, queue: ServiceQueue) -> None:
        ctl = self.controls()
        if ctl.limit_retries and not self._budget_on:
            self._budget_tokens = self._budget_cap(ctl)  # a new budget starts full
        self._budget_on = ctl.limit_retries
        now = self.model_now()
        sends: list[Call] = []
        while self._next_arrival <= now:
            call = self._arrival(ctl)
            if call is not None:
                sends.append(call)
        while self._retries and self._retries[0][0] <= now:
            _, _, call = heapq.heappop(self._retries)
            sends.append(call)
        gave_up: list[str] = []
        wall = time.monotonic()
        due: list[tuple[float, str, Call]] = []
        while self._deadlines and self._deadlines[0][0] <= wall:
            due.append(self._deadlines.popleft())
        if due:
            unanswered = queue.expire([attempt for _, attempt, _ in due])
            for (_, _, call), gone in zip(due, unanswered, strict=True):
                if gone:
                    self._failed(call, now, ctl, gave_up)
        for start in range(0, len(sends), MAX_SEND_BATCH):
            self._send(queue, sends[start : start + MAX_SEND_BATCH], now, ctl, gave_up)
        if gave_up:
            queue.gave_up(gave_up, reconcile=ctl.reconcile_payments, delay_ms=self.delay_ms)

    def _arrival(self, ctl: ControlState) -> Call | None:
        """Draw the next arrival time; return the call arriving now (None on a rate change)."""
        p, t = self.p, self._next_arrival
        if t < p.trigger_start_s:
            rate, switch = p.base_rps, p.trigger_start_s
        elif t < p.trigger_end_s:
            rate, switch = p.spike_rps, p.trigger_end_s
        else:
            rate, switch = p.base_rps, math.inf
        nxt = t - math.log(1.0 - self.rng.random()) / rate if rate > 0 else math.inf
        real = not self._redraw
        # Poisson arrivals are memoryless: at a rate change, draw again from the switch.
        self._redraw = nxt >= switch
        self._next_arrival = switch if self._redraw else nxt
        if not real:
            return None
        self.calls += 1
        op = ""
        if p.payment_share and self.rng.random() < p.payment_share:
            self.payments += 1
            op = f"pay-{self.payments:06d}"
        if self._budget_on:
            cap = self._budget_cap(ctl)
            self._budget_tokens = min(cap, self._budget_tokens + ctl.retry_budget)
        self.tally.add("arrivals")
        return Call(self.calls, op)

    def _send(
        self, queue: ServiceQueue, calls: list[Call], now: float, ctl: ControlState, gave_up: list
    ) -> None:
        attempts = []
        for call in calls:
            call.attempts += 1
            if call.attempts > 1:
                self.tally.add("retries")
            attempts.append(
                (
                    f"c{call.call_id}.{call.attempts}",
                    call.operation_id,
                    bool(call.operation_id) and not call.registered,
                    call.first_ms,
                )
            )
            call.registered = True
        admit: dict[str, Any] = {}
        if ctl.admission_limit:
            rate = ctl.admit_now_rps
            admit = {
                "admit_epoch": ctl.admit_epoch,
                "admit_per_ms": rate / self.scale / 1000.0,
                "admit_burst": rate * ADMISSION_BURST_S,
            }
        now_ms, codes = queue.send(
            attempts, timeout_ms=self.timeout_ms, queue_limit=self.p.queue_limit, **admit
        )
        deadline = time.monotonic() + self.timeout_wall_s
        for call, (attempt, _, _, _), code in zip(calls, attempts, codes, strict=True):
            if not call.first_ms:
                call.first_ms = now_ms  # the call's wait counts from its first attempt
            if code == ADMITTED:
                self.tally.add("admitted")
                self._deadlines.append((deadline, attempt, call))
            else:
                # Refused at once (429 from the limit, 503 from a full queue): the caller
                # knows now and backs off.
                self.tally.add("rejected")
                self.tally.add("rejected_full" if code == FULL_503 else "rejected_limit")
                self._failed(call, now, ctl, gave_up)

    def _failed(self, call: Call, now: float, ctl: ControlState, gave_up: list) -> None:
        """An attempt failed: back off and retry, or give up (a payment's ledger is told)."""
        n = call.attempts
        if n < self.attempts_per_call and (not self._budget_on or self._budget_tokens >= 1.0):
            if self._budget_on:
                self._budget_tokens -= 1.0
            p = self.p
            wait_ms = min(p.backoff_cap_ms, p.backoff_base_ms * 2.0 ** (n - 1))
            if p.jitter == "full":
                wait_ms *= self.rng.random()
            heapq.heappush(self._retries, (now + wait_ms / 1000.0, call.call_id, call))
            return
        self.tally.add("gave_up")
        if call.operation_id:
            gave_up.append(call.operation_id)

    def _budget_cap(self, ctl: ControlState) -> float:
        return max(1.0, ctl.retry_budget * self.p.base_rps * RETRY_WINDOW_S)
