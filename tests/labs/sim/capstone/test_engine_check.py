"""An independent check of the capstone engine: SimPy agrees with it, and tiny runs by hand.

Two kinds of evidence that the hand-written event loop does what docs/capstone.md says:

1. The same model written in SimPy (`bench/simpy_trapped.py`, processes and a store)
   runs short scenarios next to the engine. Both draw their callers from the same stream,
   so the callers are identical; what happens to them is computed independently. They must
   agree within TOLERANCE on every per-run total and per-second series compared. (Today
   they agree exactly on these scenarios; the tolerance leaves room for two events at the
   same instant being taken in another order, which neither model treats as meaningful.)
2. Scenarios of three or four callers with scripted arrival times and constant service,
   whose every step is worked out by hand below and compared with the engine's trace, the
   way SimPy's own tests compare event logs.
"""

from __future__ import annotations

import math

import pytest

from bench.simpy_trapped import run_simpy
from labs.sim.capstone.engine import simulate
from labs.sim.capstone.trapped_params import TrappedParams

TOLERANCE = 0.02  # relative, on totals; backlog series within 2% of the peak backlog
SHORT = {"horizon_s": 60, "trigger_start_s": 10.0, "trigger_end_s": 25.0, "recover_at_s": 60.0}
SCENARIOS = {
    "trapped": {},
    "mild spike": {"spike_rps": 110.0},
    "costs vary 20x": {"cost_spread": 20.0},
    "constant service, no jitter": {"service_dist": "constant", "jitter": "none"},
    "two retrying layers": {"retry_layers": 2, "spike_rps": 150.0},
    "slowdown, small queue": {"slowdown_factor": 2.0, "spike_rps": 80.0, "queue_limit": 300},
    "half payments": {"payment_share": 0.5},
}
TOTALS = ("arrivals", "retries", "admitted", "rejected", "useful", "wasted", "gave_up")


def close(ours: float, peer: float, slack: float = 2.0) -> bool:
    return abs(ours - peer) <= max(slack, TOLERANCE * max(abs(ours), abs(peer)))


def p99(per_second: list[list[float]]) -> float:
    waits = sorted(w for second in per_second for w in second)
    return waits[max(0, math.ceil(0.99 * len(waits)) - 1)] if waits else 0.0


@pytest.mark.parametrize("seed", [1, 5])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_it_agrees_with_the_same_model_written_in_simpy(scenario, seed):
    p = TrappedParams(**SHORT, **SCENARIOS[scenario])
    ours, peer = simulate(p, seed), run_simpy(p, seed)
    a, b = ours["series"], peer["series"]
    assert a["arrivals"] == b["arrivals"]  # the same callers, by construction
    for name in TOTALS:
        assert close(sum(a[name]), sum(b[name])), (name, sum(a[name]), sum(b[name]))
    peak = max(max(a["backlog"]), 1)
    assert close(peak, max(b["backlog"]))
    gaps = [abs(x - y) for x, y in zip(a["backlog"], b["backlog"], strict=True)]
    assert max(gaps) <= max(2, TOLERANCE * peak), max(gaps)
    assert close(ours["ledger"].total, peer["ledger"].total, slack=0)
    for state, count in ours["ledger"].counts.items():
        assert close(count, peer["ledger"].counts[state]), state
    for kind in ("attempt", "call"):
        assert p99(ours["waits_s"][kind]) == pytest.approx(
            p99(peer["waits_s"][kind]), rel=TOLERANCE, abs=0.005
        )


def test_it_checks_against_a_peer_that_can_disagree():
    # The check has teeth: another model (a doubled timeout) is caught by the same test.
    p = TrappedParams(**SHORT)
    ours = simulate(p, 5)["series"]
    other = run_simpy(TrappedParams(**SHORT, client_timeout_ms=2000.0), 5)["series"]
    assert not close(sum(ours["retries"]), sum(other["retries"]))


# ---- Tiny scenarios worked out by hand -------------------------------------------------

TINY = {
    "horizon_s": 10,
    "base_rps": 1.0,
    "workers": 1,
    "service_ms": 450.0,
    "service_dist": "constant",
    "payment_share": 0.0,
    "trigger_start_s": 10.0,
    "trigger_end_s": 10.0,
    "client_timeout_ms": 1000.0,
    "max_attempts": 2,
    "backoff_base_ms": 100.0,
    "jitter": "none",
    "recover_at_s": 10.0,
}


def scripted_arrivals(times_s: list[float], rate: float, payments: bool = False):
    """Uniform draws that make the engine's Poisson callers arrive at exactly `times_s`.

    The engine draws the gap to the next caller as -ln(1 - u) / rate, first at 0 s and then
    at each caller (before that caller's payment draw, if payments are on). The last gap
    is 30 s, past the horizon of these runs, so nobody else comes.
    """
    gaps = [b - a for a, b in zip([0.0, *times_s], [*times_s, times_s[-1] + 30.0], strict=True)]
    numbers = []
    for i, gap in enumerate(gaps):
        numbers.append(-math.expm1(-rate * gap))  # u with -ln(1 - u) / rate == gap
        if payments and i > 0:
            numbers.append(0.0)  # drawn right after caller i's next gap: 0 < share, it pays
    it = iter(numbers)
    return lambda: next(it)


def run_tiny(times_s: list[float], **params: object) -> tuple[dict, list[tuple]]:
    p = TrappedParams(**{**TINY, **params})
    pays = p.payment_share > 0
    trace: list[tuple] = []
    raw = simulate(
        p, 0, draws={"arrivals": scripted_arrivals(times_s, p.base_rps, pays)}, trace=trace
    )
    return raw, [(round(t, 9), *rest) for t, *rest in trace]


def test_it_serves_queues_times_out_and_retries_exactly_as_worked_by_hand():
    # One worker, 450 ms a request, 1 s timeout, one retry 100 ms after a timeout.
    # Caller 1 at 0.5 s is served at once and answered at 0.95 s. Caller 2 (0.6 s) waits
    # for the worker and is answered at 1.4 s. Caller 3 (0.7 s) starts at 1.4 s but gives
    # up at 1.7 s; it retries at 1.8 s. The worker finishes the abandoned attempt at 1.85 s
    # (wasted), then serves the retry, answered at 2.3 s.
    raw, trace = run_tiny([0.5, 0.6, 0.7])
    assert trace == [
        (0.5, "send", 1, 1),
        (0.5, "start", 1),
        (0.6, "send", 2, 1),
        (0.7, "send", 3, 1),
        (0.95, "answer", 1),
        (0.95, "start", 2),
        (1.4, "answer", 2),
        (1.4, "start", 3),
        (1.7, "timeout", 3),
        (1.8, "send", 3, 2),
        (1.85, "wasted", 3),
        (1.85, "start", 3),
        (2.3, "answer", 3),
    ]
    s = raw["series"]
    assert s["arrivals"][:3] == [3, 0, 0]
    assert s["retries"][:3] == [0, 1, 0]
    assert s["useful"][:3] == [1, 1, 1] and s["wasted"][:3] == [0, 1, 0]
    assert s["backlog"][:3] == [2, 1, 0]  # at 1 s: caller 2 in service, caller 3 queued
    waits = raw["waits_s"]
    assert [[round(w, 9) for w in sec] for sec in waits["attempt"][:3]] == [[0.45], [0.8], [0.5]]
    assert [[round(w, 9) for w in sec] for sec in waits["call"][:3]] == [[0.45], [0.8], [1.6]]
    # The first draw at 0 s, 3 callers, 1 retry, 4 completions and 1 deadline that fired.
    assert raw["events"] == 1 + 3 + 1 + 4 + 1


def test_it_refuses_at_a_full_queue_and_gives_up_after_the_last_attempt():
    # Queue of 1, no retries: caller 2 queues behind caller 1, caller 3 finds it full.
    _, trace = run_tiny([0.1, 0.2, 0.3], queue_limit=1, max_attempts=1)
    assert trace == [
        (0.1, "send", 1, 1),
        (0.1, "start", 1),
        (0.2, "send", 2, 1),
        (0.3, "send", 3, 1),
        (0.3, "rejected", 3),
        (0.3, "gave_up", 3),
        (0.55, "answer", 1),
        (0.55, "start", 2),
        (1.0, "answer", 2),
    ]


def test_it_changes_nothing_by_dropping_when_nothing_at_the_head_has_expired():
    # In the first scenario every attempt a worker takes still has its caller waiting
    # (caller 3 is taken at 1.4 s, before its 1.7 s deadline), so drop_expired has
    # nothing to drop and the trace is the same step for step.
    _, plain = run_tiny([0.5, 0.6, 0.7])
    _, dropping = run_tiny([0.5, 0.6, 0.7], drop_expired=True, recover_at_s=0.0)
    assert dropping == plain


def test_it_drops_a_read_whose_caller_has_gone():
    # 900 ms of work each, 1 s timeout, one retry 100 ms later, drop_expired from 0 s.
    # Caller 1 (0.1 s) is answered at 1.0 s. Caller 2 (0.2 s) starts at 1.0 s but its
    # deadline is 1.2 s: it retries at 1.3 s. Caller 3 (0.3 s) times out at 1.3 s (a
    # deadline goes before any other event at the same instant) and retries at 1.4 s.
    # At 1.9 s the worker finishes caller 2's first attempt for nobody, then finds caller
    # 3's first attempt expired and drops it (1 ms) instead of spending 900 ms on it. It
    # starts caller 2's retry at 1.901 s, but that needs 900 ms and the caller waits only
    # until 2.3 s: both callers give up, and the worker's 2.801 s answer is wasted too.
    _, trace = run_tiny([0.1, 0.2, 0.3], service_ms=900.0, drop_expired=True, recover_at_s=0.0)
    assert trace == [
        (0.1, "send", 1, 1),
        (0.1, "start", 1),
        (0.2, "send", 2, 1),
        (0.3, "send", 3, 1),
        (1.0, "answer", 1),
        (1.0, "start", 2),
        (1.2, "timeout", 2),
        (1.3, "timeout", 3),
        (1.3, "send", 2, 2),
        (1.4, "send", 3, 2),
        (1.9, "wasted", 2),
        (1.9, "dropped", 3),
        (1.901, "start", 2),
        (2.3, "timeout", 2),
        (2.3, "gave_up", 2),
        (2.4, "timeout", 3),
        (2.4, "gave_up", 3),
        (2.801, "wasted", 2),
        (2.801, "dropped", 3),
    ]


def test_it_follows_each_payment_to_one_outcome():
    # Everyone pays. Caller 3's first attempt is served after it gave up (wasted), which
    # charges it; its retry is answered, so it ends confirmed and the second charge is
    # absorbed by the operation id.
    raw, _ = run_tiny([0.5, 0.6, 0.7], payment_share=1.0)
    ledger = raw["ledger"]
    assert ledger.total == 3
    assert ledger.counts["confirmed"] == 3
    assert ledger.charges == 3 and ledger.duplicates_absorbed == 1
