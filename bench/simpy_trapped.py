"""The trapped service written the ordinary SimPy way, as a yardstick for the hand-made loop.

Same model as `labs.sim.capstone.engine` for the scenarios the benchmark runs: Poisson
callers with a spike, a bounded FIFO queue, `workers` servers, a per-attempt client
timeout, retries with doubling backoff and jitter, abandoned attempts left in the queue,
and payments followed by the same `Ledger`. Recovery controls, other disciplines and
lost workers are not written here: the peer refuses them rather than run something else.

Each caller is a SimPy process that waits on "answer or timeout"; each worker is a
process that takes from a `simpy.Store`. That is how the SimPy documentation models
such systems, which is what makes it a fair peer.
"""

from __future__ import annotations

import math
import random
from typing import Any

import simpy

from labs.sim.capstone.obligations import STATES, Ledger
from labs.sim.capstone.params import TrappedParams


class Attempt:
    """One attempt in the queue: when it was sent, when its caller stops waiting, its answer."""

    __slots__ = ("sent_s", "deadline_s", "cost", "payment", "answer")

    def __init__(self, env: simpy.Environment, t: float, timeout_s: float, cost: float, payment):
        self.sent_s = t
        self.deadline_s = t + timeout_s
        self.cost = cost
        self.payment = payment
        self.answer = env.event()


def run_simpy(p: TrappedParams, seed: int) -> dict[str, Any]:
    """Run one scenario with SimPy; return per-second series like the engine's, and events."""
    unsupported = {
        "discipline": p.discipline != "fifo",
        "workers_lost": p.workers_lost > 0,
        "admission_limit": p.admission_limit,
        "limit_retries": p.limit_retries,
        "drop_expired": p.drop_expired,
        "reconcile_payments": p.reconcile_payments,
        "reserve_share": p.reserve_share > 0,
    }
    for name, used in unsupported.items():
        if used:
            raise NotImplementedError(f"the SimPy peer does not model {name}")

    env = simpy.Environment()
    rng = random.Random(seed)
    queue = simpy.Store(env)
    ledger = Ledger(p.reconcile_delay_s, keep_unknown=False)
    timeout_s = p.client_timeout_ms / 1000.0
    service_s = p.service_ms / 1000.0
    spread = p.cost_spread
    mean_cost = (spread - 1.0) / math.log(spread) if spread > 1.0 else 1.0
    names = ("arrivals", "retries", "admitted", "rejected", "useful", "wasted", "gave_up")
    now = dict.fromkeys(names, 0)
    series: dict[str, list[Any]] = {n: [] for n in (*names, "backlog", "oldest_age_s")}
    for s in STATES:
        series[f"payments_{s}"] = []
    in_service = [0]

    def in_trigger() -> bool:
        return p.trigger_start_s <= env.now < p.trigger_end_s

    def worker():
        while True:
            attempt = yield queue.get()
            in_service[0] += 1
            slow = p.slowdown_factor if in_trigger() else 1.0
            svc = service_s * slow * attempt.cost
            if p.service_dist == "exponential":
                svc *= rng.expovariate(1.0)
            yield env.timeout(svc)
            in_service[0] -= 1
            waiting = env.now <= attempt.deadline_s
            if waiting:
                now["useful"] += 1
                attempt.answer.succeed()
            else:
                now["wasted"] += 1
            if attempt.payment:
                ledger.served(attempt.payment, env.now, waiting)

    def caller(cost: float, payment):
        for n in range(1, p.attempts_per_call + 1):
            if n > 1:
                now["retries"] += 1
            if len(queue.items) >= p.queue_limit:
                now["rejected"] += 1
            else:
                now["admitted"] += 1
                attempt = Attempt(env, env.now, timeout_s, cost, payment)
                if payment:
                    ledger.admitted(payment)
                queue.put(attempt)
                result = yield attempt.answer | env.timeout(timeout_s)
                if attempt.answer in result:
                    return
            if n == p.attempts_per_call:
                break
            wait = min(p.backoff_cap_ms, p.backoff_base_ms * 2.0 ** (n - 1)) / 1000.0
            if p.jitter == "full":
                wait *= rng.random()
            yield env.timeout(wait)
        now["gave_up"] += 1
        if payment:
            ledger.gave_up(payment, env.now)

    def source():
        while True:
            rate = p.spike_rps if in_trigger() else p.base_rps
            switch = (
                p.trigger_start_s
                if env.now < p.trigger_start_s
                else p.trigger_end_s
                if in_trigger()
                else math.inf
            )
            gap = rng.expovariate(rate) if rate > 0 else math.inf
            if env.now + gap >= switch:
                yield env.timeout(switch - env.now)
                continue
            yield env.timeout(gap)
            now["arrivals"] += 1
            cost = spread ** rng.random() / mean_cost if spread > 1.0 else 1.0
            payment = ledger.new(env.now) if rng.random() < p.payment_share else None
            env.process(caller(cost, payment))

    def monitor():
        while True:
            yield env.timeout(1.0)
            for n in names:
                series[n].append(now[n])
                now[n] = 0
            items = queue.items
            series["backlog"].append(len(items) + in_service[0])
            series["oldest_age_s"].append(round(env.now - items[0].sent_s, 3) if items else 0.0)
            for s in STATES:
                series[f"payments_{s}"].append(ledger.counts[s])

    for _ in range(p.workers):
        env.process(worker())
    env.process(source())
    env.process(monitor())
    events = 0
    horizon = float(p.horizon_s) + 1e-9  # let the last second's monitor run
    while env.peek() < horizon:
        env.step()
        events += 1
    return {"series": series, "events": events, "ledger": ledger}
