"""The capstone lab: a service that stays stuck after a spike, and what gets it out.

`trapped_service(seed=..., **params)` is what the site calls: plain keyword params in,
a JSON-ready dict out. See `labs.sim.capstone.trapped_params` for every param and its bounds.
"""

from __future__ import annotations

from typing import Any

from labs.sim.capstone.engine import SERIES
from labs.sim.capstone.fast import simulate
from labs.sim.capstone.specs import build, check_seed
from labs.sim.capstone.summary import drain_reasons, summarize
from labs.sim.capstone.trapped_params import PARAM_SPECS, TrappedParams

DEFAULT_SEED = 5
RECOMMENDED_CONTROLS = {
    # The set that drains the default run within seconds of recover_at_s: stop the
    # retries feeding the loop, throw away reads nobody waits for, keep payments owned,
    # and keep the door narrow until the queue is short, then reopen slowly.
    "admission_limit": True,
    "limit_retries": True,
    "drop_expired": True,
    "reconcile_payments": True,
    "reserve_share": 0.25,
}

__all__ = ["DEFAULT_SEED", "PARAM_SPECS", "RECOMMENDED_CONTROLS", "trapped_service"]


def trapped_service(seed: int = DEFAULT_SEED, **params: Any) -> dict[str, Any]:
    """Run the reading-list service through a trigger and (optionally) its recovery.

    Returns {"summary": ..., "series": {"second": [...], ...}, "tables": {...}}: one value
    per simulated second in every series, and the payments an operator must follow up.
    `latency_p99_ms` (and p50, p95) is how long the callers answered that second waited for
    the attempt that got the answer; `call_latency_p99_ms` counts from their first attempt.
    """
    p = build(TrappedParams, params)
    raw = simulate(p, check_seed(seed), figures=True)  # the waits are read as figures only
    series: dict[str, list[Any]] = {"second": list(range(len(raw["series"]["backlog"])))}
    series.update({name: raw["series"][name] for name in SERIES})
    series.update(raw["waits_s"]["attempt"].series_ms("latency"))
    series.update(raw["waits_s"]["call"].series_ms("call_latency"))
    return {
        "summary": summarize(p, raw),
        "series": series,
        "tables": {
            "obligations": raw["ledger"].table(float(p.horizon_s)),
            "drain_reasons": drain_reasons(p, raw),
        },
    }
