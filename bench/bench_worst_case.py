"""Worst-case capstone runs at the form's bounds: measured seconds against the cost bound.

The site refuses a run whose bound (`labs.sim.capstone.cost`) is over `LAB_RUN_BUDGET_S`.
This runs, for each heavy lab, the most expensive parameters the budget still lets through
(scaled from a trapped worst case: one worker, a 10 s service, a 10 ms client timeout, every
retry layer), and prints measured seconds beside the bound, so the coefficients in
`cost.py` can be checked on a new machine. Usage:

    .venv/bin/python bench/bench_worst_case.py [--budget 10]
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from labs.sim.capstone import cold_cache, phase_map, trapped_service  # noqa: E402
from labs.sim.capstone.cost import (  # noqa: E402
    cold_cache_cost,
    phase_map_cost,
    trapped_cost,
)

TRAPPED_WORST = {
    "workers": 1,
    "service_ms": 10000,
    "client_timeout_ms": 10,
    "max_attempts": 4,
    "retry_layers": 3,
    "base_rps": 80,
    "spike_rps": 80,
    "trigger_start_s": 0,
    "trigger_end_s": 0,
    "recover_at_s": 0,
}


def largest_within(budget_s: float, make, cost, low: int, high: int) -> dict:
    """The params from `make(x)` with the largest x in [low, high] whose bound fits."""
    best = make(low)
    while low <= high:
        mid = (low + high) // 2
        if cost(make(mid)).seconds <= budget_s:
            best, low = make(mid), mid + 1
        else:
            high = mid - 1
    return best


def measure(label: str, fn, params: dict, bound_s: float) -> None:
    started = time.perf_counter()
    fn(**params)
    took = time.perf_counter() - started
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {label} | {bound_s:.1f} | {took:.2f} | {took / bound_s:.2f} | {rss_mb:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=10.0, help="LAB_RUN_BUDGET_S")
    args = parser.parse_args()
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}")
    print("| run | bound s | measured s | measured / bound | peak RSS MB |")
    print("| --- | ---: | ---: | ---: | ---: |")

    def trapped(horizon: int) -> dict:
        return TRAPPED_WORST | {"horizon_s": horizon}

    worst = largest_within(args.budget, trapped, trapped_cost, 10, 3600)
    measure(
        f"trapped-service, horizon {worst['horizon_s']} s, 4^3 attempts",
        lambda **p: trapped_service(seed=1, **p),
        worst,
        trapped_cost(worst).seconds,
    )

    def grid(steps: int) -> dict:
        return {
            "spike_min_rps": 100, "spike_max_rps": 400, "spike_steps": steps,
            "duration_min_s": 5, "duration_max_s": 30, "duration_steps": steps,
            "base_min_rps": 80, "base_max_rps": 80, "base_steps": 1,
            "map_horizon_s": 60, "map_trigger_start_s": 5, "max_attempts": 10,
            "client_timeout_ms": 1000, "workers": 10,
        }  # fmt: skip

    worst = largest_within(args.budget, grid, phase_map_cost, 1, 20)
    measure(
        f"phase-map, {worst['spike_steps']}x{worst['duration_steps']} grid, 10 attempts",
        lambda **p: phase_map(seed=1, **p),
        worst,
        phase_map_cost(worst).seconds,
    )

    def cache(horizon: int) -> dict:
        return {"offered_rps": 1000, "horizon_s": horizon}

    worst = largest_within(args.budget, cache, cold_cache_cost, 5, 1000)
    measure(
        f"cold-cache, {worst['offered_rps']} reads/s for {worst['horizon_s']} s",
        lambda **p: cold_cache(seed=1, **p),
        worst,
        cold_cache_cost(worst).seconds,
    )


if __name__ == "__main__":
    main()
