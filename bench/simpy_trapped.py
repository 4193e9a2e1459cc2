"""The trapped service written in SimPy, tuned: the yardstick for the hand-made event loop.

Same model as `labs.sim.capstone.engine` for the scenarios the benchmark runs: Poisson
callers with a spike, a bounded FIFO queue, `workers` servers, a per-attempt client
timeout, retries with doubling backoff and jitter, abandoned attempts left in the queue,
and payments followed by the same `Ledger`. Recovery controls, other disciplines and
lost workers are not written here: the peer refuses them rather than run something else.

It draws from the same named streams as the engine (`labs.sim.capstone.streams`), in the
same order for the callers, so both models meet exactly the same callers; service times
and jitter are drawn in the order the peer's own events happen, which may differ a little.

Each caller is a SimPy process and each worker a process taking from a store. It is the
fastest straightforward SimPy version we found, so the comparison is fair to SimPy:

- a caller waits on a plain `env.timeout(timeout)` and then looks at a flag the worker
  set, instead of waiting on the condition `answer | timeout` (a condition event and an
  answer event per attempt cost more than the timeout itself);
- the store keeps its items in a `deque`, so a worker takes the oldest in O(1) (SimPy's
  `Store` pops the front of a list, which costs more as a 2,000-deep queue fills);
- the whole run is one `env.run(until=...)`, not a Python loop around `env.step()`.

A caller whose attempt was answered early still sleeps until that attempt's timeout before
its process ends; it sends nothing more, so the figures are those of the condition form.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import simpy

from labs.sim.capstone.obligations import STATES, Ledger
from labs.sim.capstone.streams import ARRIVALS, RETRIES, SERVICE, stream
from labs.sim.capstone.trapped_params import TrappedParams

UNSUPPORTED = (
    ("discipline", lambda p: p.discipline != "fifo"),
    ("workers_lost", lambda p: p.workers_lost > 0),
    ("admission_limit", lambda p: p.admission_limit),
    ("limit_retries", lambda p: p.limit_retries),
    ("drop_expired", lambda p: p.drop_expired),
    ("reconcile_payments", lambda p: p.reconcile_payments),
    ("reserve_share", lambda p: p.reserve_share > 0),
)


class DequeStore(simpy.Store):
    """A `simpy.Store` whose items sit in a deque: taking the oldest costs the same at any depth."""

    def __init__(self, env: simpy.Environment) -> None:
        super().__init__(env)
        self.items: deque[Any] = deque()  # type: ignore[assignment]

    def _do_get(self, event: Any) -> None:
        if self.items:
            event.succeed(self.items.popleft())


class Attempt:
    """One attempt in the queue: when it was sent, when its caller stops waiting, its answer."""

    __slots__ = ("sent_s", "deadline_s", "cost", "payment", "answered", "call_sent_s")

    def __init__(
        self, t: float, timeout_s: float, cost: float, payment: Any, call_sent_s: float
    ) -> None:
        self.sent_s = t
        self.deadline_s = t + timeout_s
        self.cost = cost
        self.payment = payment
        self.answered = False
        self.call_sent_s = call_sent_s


def run_simpy(p: TrappedParams, seed: int) -> dict[str, Any]:
    """Run one scenario with SimPy; return per-second series like the engine's, and events.

    Also `waits_s`: for each second, how long each caller answered in it waited for that
    attempt (`attempt`) and since its first attempt (`call`), as the engine records them.
    """
    for name, used in UNSUPPORTED:
        if used(p):
            raise NotImplementedError(f"the SimPy peer does not model {name}")

    env = simpy.Environment()
    arrival_draw = stream(seed, ARRIVALS).random
    service_draw = stream(seed, SERVICE).random
    jitter_draw = stream(seed, RETRIES).random
    queue = DequeStore(env)
    items = queue.items
    ledger = Ledger(p.reconcile_delay_s, keep_unknown=False)
    timeout_s = p.client_timeout_ms / 1000.0
    service_s = p.service_ms / 1000.0
    expo = p.service_dist == "exponential"
    spread = p.cost_spread
    varied = spread > 1.0
    mean_cost = (spread - 1.0) / math.log(spread) if varied else 1.0
    attempts = p.attempts_per_call
    backoff = [
        min(p.backoff_cap_ms, p.backoff_base_ms * 2.0 ** (n - 1)) / 1000.0
        for n in range(1, attempts + 1)
    ]
    names = ("arrivals", "retries", "admitted", "rejected", "useful", "wasted", "gave_up")
    now = dict.fromkeys(names, 0)
    series: dict[str, list[Any]] = {n: [] for n in (*names, "backlog", "oldest_age_s")}
    for s in STATES:
        series[f"payments_{s}"] = []
    waits: dict[str, list[list[float]]] = {"attempt": [], "call": []}
    answered: list[float] = []
    call_answered: list[float] = []
    in_service = [0]

    def in_trigger() -> bool:
        return p.trigger_start_s <= env.now < p.trigger_end_s

    def worker():
        while True:
            attempt = yield queue.get()
            in_service[0] += 1
            svc = service_s * (p.slowdown_factor if in_trigger() else 1.0) * attempt.cost
            if expo:
                svc *= -math.log(1.0 - service_draw())
            yield env.timeout(svc)
            in_service[0] -= 1
            t = env.now
            waiting = t <= attempt.deadline_s
            if waiting:
                now["useful"] += 1
                attempt.answered = True
                answered.append(t - attempt.sent_s)
                call_answered.append(t - attempt.call_sent_s)
            else:
                now["wasted"] += 1
            if attempt.payment:
                ledger.served(attempt.payment, t, waiting)

    def caller(cost: float, payment: Any):
        first_sent_s = env.now
        for n in range(1, attempts + 1):
            if n > 1:
                now["retries"] += 1
            if len(items) >= p.queue_limit:
                now["rejected"] += 1
            else:
                now["admitted"] += 1
                attempt = Attempt(env.now, timeout_s, cost, payment, first_sent_s)
                if payment:
                    ledger.admitted(payment)
                queue.put(attempt)
                yield env.timeout(timeout_s)
                if attempt.answered:
                    return
            if n == attempts:
                break
            wait = backoff[n - 1]
            if p.jitter == "full":
                wait *= jitter_draw()
            yield env.timeout(wait)
        now["gave_up"] += 1
        if payment:
            ledger.gave_up(payment, env.now)

    def source():
        # Drawn exactly as the engine draws its callers, in the same order: at each arrival
        # first the time of the next one, then this caller's cost and payment. A rate change
        # restarts the draw (the "arrival" at the switch itself is not a caller).
        redraw = True
        while True:
            t = env.now
            if t < p.trigger_start_s:
                rate, switch = p.base_rps, p.trigger_start_s
            elif t < p.trigger_end_s:
                rate, switch = p.spike_rps, p.trigger_end_s
            else:
                rate, switch = p.base_rps, math.inf
            nxt = t - math.log(1.0 - arrival_draw()) / rate if rate > 0.0 else math.inf
            real = not redraw
            redraw = nxt >= switch
            if real:
                now["arrivals"] += 1
                cost = spread ** arrival_draw() / mean_cost if varied else 1.0
                pay = p.payment_share and arrival_draw() < p.payment_share
                env.process(caller(cost, ledger.new(t) if pay else None))
            yield env.timeout((switch if redraw else nxt) - t)

    def monitor():
        nonlocal answered, call_answered
        while True:
            yield env.timeout(1.0)
            for n in names:
                series[n].append(now[n])
                now[n] = 0
            series["backlog"].append(len(items) + in_service[0])
            series["oldest_age_s"].append(round(env.now - items[0].sent_s, 3) if items else 0.0)
            for s in STATES:
                series[f"payments_{s}"].append(ledger.counts[s])
            waits["attempt"].append(answered)
            waits["call"].append(call_answered)
            answered, call_answered = [], []

    for _ in range(p.workers):
        env.process(worker())
    env.process(source())
    env.process(monitor())
    env.run(until=float(p.horizon_s) + 1e-9)  # let the last second's monitor run
    # SimPy numbers every event it schedules: the next number is how many there were.
    events = next(env._eid)  # noqa: SLF001
    return {"series": series, "events": events, "ledger": ledger, "waits_s": waits}
