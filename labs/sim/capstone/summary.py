"""Reading a run: did it recover, how much work was useful, and was the drain estimate right.

The engine gives per-second counts. This module turns them into the headline figures a
teacher grades and a student compares between runs: recovery time, goodput before,
during and after the trigger, retry amplification, the share of worker time wasted on
callers who had already gone, the payments ledger, and the assignment's drain estimate
(backlog / net capacity) next to the drain that actually happened.
"""

from __future__ import annotations

from typing import Any

from labs.sim.capstone.latency import wait_figures
from labs.sim.capstone.obligations import STATES
from labs.sim.capstone.trapped_params import TrappedParams

RECOVERY_HOLD_S = 10  # a recovery counts once the service stayed healthy this long
DRAIN_TOLERANCE = 0.25  # the estimate "holds" within 25% of the actual drain ...
DRAIN_SLACK_S = 3.0  # ... or within 3 s, whichever is larger (Poisson noise on short drains)


def drain_estimate_s(backlog: float, arrivals_per_s: float, capacity_per_s: float) -> float | None:
    """Seconds to empty `backlog` at net capacity (capacity - arrivals); None if it never can.

    This is the assignment's starter arithmetic: 600 waiting, 20/s arriving and 50/s of
    capacity drain in 20 s; with 60/s arriving the queue grows and never drains.
    """
    if backlog < 0:
        raise ValueError(f"backlog must be >= 0, got {backlog}")
    if arrivals_per_s < 0 or capacity_per_s < 0:
        raise ValueError(
            "arrivals_per_s and capacity_per_s must be >= 0, "
            f"got {arrivals_per_s} and {capacity_per_s}"
        )
    net = capacity_per_s - arrivals_per_s
    if net <= 0:
        return None
    return backlog / net


def healthy(oldest_age_s: float, p: TrappedParams) -> bool:
    """A second is healthy when the oldest waiting request is younger than half the timeout."""
    return oldest_age_s <= p.client_timeout_ms / 2000.0


def recovered_at(series: dict[str, list[Any]], p: TrappedParams) -> int | None:
    """The second from which the service stayed healthy to the end, if it did for long enough.

    Counted from the end of the trigger: a service that never left the healthy range
    during a mild trigger has "recovered" as soon as the trigger ends.
    """
    ages = series["oldest_age_s"]
    start = int(p.trigger_end_s)
    at = len(ages)
    while at > start and healthy(ages[at - 1], p):
        at -= 1
    if len(ages) - at < RECOVERY_HOLD_S:
        return None
    return at


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


def summarize(p: TrappedParams, raw: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of one run (snake_case keys, numbers, booleans, short strings)."""
    s = raw["series"]
    on, off = int(p.trigger_start_s), int(p.trigger_end_s)
    useful = s["useful"]
    originals = sum(s["arrivals"])
    retries = sum(s["retries"])
    work = raw["work"]
    busy = work["useful_s"] + work["wasted_s"] + work["drop_s"]
    ledger = raw["ledger"]
    counts = ledger.counts
    rec = recovered_at(s, p)
    summary: dict[str, Any] = {
        "recovered": rec is not None,
        "recovered_at_s": rec,
        "peak_backlog": max(s["backlog"], default=0),
        "final_backlog": s["backlog"][-1] if s["backlog"] else 0,
        "final_oldest_age_s": s["oldest_age_s"][-1] if s["oldest_age_s"] else 0.0,
        "capacity_rps": round(p.capacity_rps, 3),
        "goodput_before_rps": _mean(useful[:on]),
        "goodput_during_rps": _mean(useful[on:off]),
        "goodput_after_rps": _mean(useful[off:]),
        "goodput_last_30s_rps": _mean(useful[-30:]),
        # Callers served again, whatever is left rotting in the queue (LIFO leaves some).
        "goodput_recovered": _mean(useful[-30:]) >= 0.95 * _mean(s["arrivals"][-30:]),
        "original_requests": originals,
        "retries": retries,
        "amplification": round((originals + retries) / originals, 3) if originals else 0.0,
        "rejected": sum(s["rejected"]),
        "expired_dropped": sum(s["expired_dropped"]),
        "wasted_completions": sum(s["wasted"]),
        "useful_completions": sum(useful),
        "wasted_share": round(work["wasted_s"] / busy, 4) if busy else 0.0,
        "obligations_total": ledger.total,
        **{f"obligations_{state}": counts[state] for state in STATES},
        "obligations_unresolved": counts["pending"] + counts["unknown"] + counts["reconciling"],
        "obligations_accounted": sum(counts.values()) == ledger.total,
        "charges": ledger.charges,
        "duplicate_charges_absorbed": ledger.duplicates_absorbed,
        "events": raw["events"],
    }
    summary.update(_latency(p, raw, len(useful)))
    summary.update(_drain(p, raw))
    return summary


def _latency(p: TrappedParams, raw: dict[str, Any], seconds: int) -> dict[str, Any]:
    """p50/p95/p99 of answered callers' waits before, during and after the trigger, last 30 s.

    `p99_ms_after` is the attempt that got the answer; `call_p99_ms_after` is the whole call
    from its first attempt, retries and backoff included: what the person actually waited.
    """
    on, off = int(p.trigger_start_s), int(p.trigger_end_s)
    windows = {
        "before": slice(0, on),
        "during": slice(on, off),
        "after": slice(off, seconds),
        "last_30s": slice(max(0, seconds - 30), seconds),
    }
    waits = raw["waits_s"]  # lists per second, or already readable (`fast.simulate`)
    return {
        **wait_figures(waits["attempt"]).window_ms(windows),
        **wait_figures(waits["call"]).window_ms(windows, prefix="call_"),
    }


def _drain(p: TrappedParams, raw: dict[str, Any]) -> dict[str, Any]:
    """The drain estimate made when the controls went on, and the drain that happened."""
    snap = raw["snapshot"]
    gap = gap_english(drain_reasons(p, raw))
    if not snap:
        return {
            "drain_backlog": 0,
            "drain_net_rps": 0.0,
            "drain_estimate_s": None,
            "actual_drain_s": None,
            "drain_estimate_held": False,
            "drain_gap": gap,
        }
    est, actual, held = _drain_outcome(raw)
    return {
        "drain_backlog": snap["backlog"],
        "drain_net_rps": round(snap["capacity_rps"] - snap["arrivals_rps"], 3),
        "drain_estimate_s": None if est is None else round(est, 3),
        "actual_drain_s": actual,
        "drain_estimate_held": held,
        "drain_gap": gap,
    }


def _drain_outcome(raw: dict[str, Any]) -> tuple[float | None, float | None, bool]:
    """(estimate, actual drain, whether the estimate held) from the snapshot at recovery."""
    snap = raw["snapshot"]
    est = drain_estimate_s(snap["backlog"], snap["arrivals_rps"], snap["capacity_rps"])
    drained = raw["drained_at_s"]
    actual = None if drained is None else round(drained - snap["at_s"], 3)
    held = (
        est is not None
        and actual is not None
        and abs(actual - est) <= max(DRAIN_SLACK_S, DRAIN_TOLERANCE * est)
    )
    return est, actual, held


# Why the drain estimate missed, one key per reason. The result keeps the keys and their
# figures (`drain_reasons`), so a page can say them in its reader's language
# (`labs.words.drain_gaps`); `drain_gap` keeps them in English for the figures table.
GAP_ENGLISH = {
    "no-estimate": "no estimate: no control went on during the run",
    "ran-out": "the run ended first: the estimate needs {est_s:.0f} s, only {left_s:.0f} s "
    "were left",
    "never-drained": "never drained: admitted work stayed at or above useful capacity",
    "said-never": "the estimate said never, yet it drained",
    "drop-not-enough": "discarding expired work is not enough while retries keep the load up",
    "expired-discarded": "expired work was discarded at the dequeue check instead of being served",
    "more-arrived": "more arrived than assumed ({admitted_rps:.0f}/s vs {assumed_rps:.0f}/s): "
    "retries kept feeding the queue",
    "less-arrived": "less arrived than assumed ({admitted_rps:.0f}/s vs {assumed_rps:.0f}/s): "
    "callers gave up or were refused",
    "cost-varies": "job cost varies: the queue held {ratio:.2f}x the work its count suggests",
    "contention": "contention: capacity came back at the trigger's end, not at once",
    "noise": "noise: random arrivals and service times",
}


def gap_english(reasons: list[dict[str, Any]]) -> str:
    """The reasons in one English line (the `drain_gap` figure); "" when the estimate held."""
    return "; ".join(GAP_ENGLISH[r["why"]].format(**r) for r in reasons)


def drain_reasons(p: TrappedParams, raw: dict[str, Any]) -> list[dict[str, Any]]:
    """Why backlog / net capacity did not predict the drain: `{"why": key, **figures}` each,
    none when it held."""
    snap = raw["snapshot"]
    if not snap:
        return [{"why": "no-estimate"}]
    est, actual, held = _drain_outcome(raw)
    if held:
        return []
    s = raw["series"]
    start = int(snap["at_s"])
    end = len(s["admitted"]) if actual is None else min(len(s["admitted"]), start + int(actual) + 1)
    window = slice(start, max(end, start + 1))
    admitted = _mean(s["admitted"][window])
    reasons: list[dict[str, Any]] = []
    left_s = p.horizon_s - snap["at_s"]
    if actual is None and est is not None and est > left_s:
        return [{"why": "ran-out", "est_s": round(est, 3), "left_s": round(left_s, 3)}]
    if actual is None:
        reasons.append({"why": "never-drained"})
    elif est is None:
        reasons.append({"why": "said-never"})
    if actual is None and p.drop_expired and sum(s["retries"][window]):
        reasons.append({"why": "drop-not-enough"})
    elif sum(s["expired_dropped"][window]) > 0.1 * max(1, snap["backlog"]):
        reasons.append({"why": "expired-discarded"})
    rates = {"admitted_rps": round(admitted, 3), "assumed_rps": round(snap["arrivals_rps"], 3)}
    if actual is None:
        pass  # a full queue caps what is admitted: comparing arrivals would mislead
    elif admitted > 1.1 * snap["arrivals_rps"]:
        reasons.append({"why": "more-arrived", **rates})
    elif admitted < 0.9 * snap["arrivals_rps"]:
        reasons.append({"why": "less-arrived", **rates})
    queued = s["queued"][start - 1] if start > 0 else 0
    if p.cost_spread > 1.0 and queued:
        ratio = snap["work_units"] / queued
        if not 0.9 <= ratio <= 1.1:
            reasons.append({"why": "cost-varies", "ratio": round(ratio, 3)})
    if snap["at_s"] < p.trigger_end_s and (p.slowdown_factor > 1 or p.workers_lost):
        reasons.append({"why": "contention"})
    if not reasons:
        reasons.append({"why": "noise"})
    return reasons
