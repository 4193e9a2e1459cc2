"""Worst-case runs at the form's bounds: measured time and peak memory against the cost bound.

The site refuses a run whose bound (`labs.sim.capstone.cost`) is over `LAB_RUN_BUDGET_S`.
This runs, for each heavy lab, the most expensive parameters the budget still lets through
(scaled from a trapped worst case: one worker, a 10 s service, a 10 ms client timeout, every
retry layer), and the cold cache at its 1 M-read cap twice: reads mostly answered from the
cache, and the case that holds the most in memory (a slow origin, no budget, every read a
new fetch of its own instance and key). Each run is a fresh process, so its peak RSS
(`ru_maxrss`) is its own; "before" is that process's RSS with the model imported, before
the run. The bound is in seconds of one core, so CPU time is compared with it (wall time
on a shared machine also counts other processes' turns).

`--experiments` also runs every real-queue experiment (the real Redis of `REDIS_URL`) with
its defaults, and burst-live at its bounds with slow pools, and prints its wall time
beside its `cost` (about 4 minutes more). Usage:

    .venv/bin/python bench/bench_worst_case.py [--budget 10] [--experiments]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from labs.runners.capstone_rules import grid_requests  # noqa: E402
from labs.sim.capstone.cost import (  # noqa: E402
    Cost,
    cold_cache_cost,
    phase_map_cost,
    trapped_cost,
)
from labs.sim.capstone.phase_map import MAX_GRID_REQUESTS  # noqa: E402

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
# Every read a fetch of its own, all still in flight at the end: the most the model holds.
COLD_CACHE_HOARD = {
    "offered_rps": 50000,
    "horizon_s": 20,
    "origin_rps": 1,
    "origin_budget": False,
    "coalescing": "instance",
    "keys": 100_000,
    "instances": 200,
    "key_skew": 0,
    "serve_stale": False,
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


def cases(budget_s: float) -> list[tuple[str, str, dict[str, Any], Callable[..., Cost]]]:
    """(label, model name, params, cost function) of every run to measure."""

    def trapped(horizon: int) -> dict:
        return TRAPPED_WORST | {"horizon_s": horizon}

    def grid(steps: int) -> dict:
        return {
            "spike_min_rps": 100, "spike_max_rps": 400, "spike_steps": steps,
            "duration_min_s": 5, "duration_max_s": 30, "duration_steps": steps,
            "base_min_rps": 80, "base_max_rps": 80, "base_steps": 1,
            "map_horizon_s": 60, "map_trigger_start_s": 5, "max_attempts": 10,
            "client_timeout_ms": 1000, "workers": 10,
        }  # fmt: skip

    def cache(horizon: int) -> dict:
        return {"offered_rps": 1000, "horizon_s": horizon}

    t = largest_within(budget_s, trapped, trapped_cost, 10, 3600)

    def grid_cost(p: dict) -> Cost:
        # The model's own cap on a grid's requests comes first (the form refuses past it).
        if grid_requests(p) > MAX_GRID_REQUESTS:
            return Cost(float("inf"), ())
        return phase_map_cost(p)

    g = largest_within(budget_s, grid, grid_cost, 1, 20)
    c = largest_within(budget_s, cache, cold_cache_cost, 5, 1000)
    return [
        (
            f"trapped-service, horizon {t['horizon_s']} s, 1 worker x 10 s service, "
            "10 ms timeout, 4^3 attempts",
            "trapped_service", t, trapped_cost,
        ),
        (
            f"phase-map, {g['spike_steps']}x{g['duration_steps']} grid, 10 attempts",
            "phase_map", g, phase_map_cost,
        ),
        (
            f"cold-cache, {c['offered_rps']:,} reads/s for {c['horizon_s']:,} s, the "
            "lesson's cache",
            "cold_cache", c, cold_cache_cost,
        ),
        (
            "cold-cache, 50,000 reads/s for 20 s, slow origin, no budget, per-instance "
            "fetches of 100,000 keys x 200 instances (the most it holds)",
            "cold_cache", COLD_CACHE_HOARD, cold_cache_cost,
        ),
    ]  # fmt: skip


def child(index: int, budget_s: float) -> None:
    """Run case `index` in this fresh process; print its figures as JSON."""
    from labs.sim import capstone

    _label, model, params, _cost = cases(budget_s)[index]
    run = getattr(capstone, model)
    before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = time.perf_counter(), time.process_time()
    run(seed=1, **params)
    figures = {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "before_mb": before_mb,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(figures))


def simulations(budget_s: float) -> None:
    print("| run | bound s | CPU s | wall s | CPU / bound | RSS before → peak MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for index, (label, _model, params, cost) in enumerate(cases(budget_s)):
        out = subprocess.run(
            [sys.executable, __file__, "--budget", str(budget_s), "--child", str(index)],
            capture_output=True, text=True, check=True, cwd=ROOT,
        ).stdout  # fmt: skip
        f = json.loads(out.strip().splitlines()[-1])
        bound = cost(params).seconds
        print(
            f"| {label} | {bound:.1f} | {f['cpu_s']:.2f} | {f['wall_s']:.2f} | "
            f"{f['cpu_s'] / bound:.2f} | {f['before_mb']:.0f} → {f['peak_mb']:.0f} |"
        )


def experiments() -> None:
    """Every experiment's defaults, and burst-live at its bounds: wall seconds vs `cost`."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    import django

    django.setup()
    from labs.catalogue.entries import LABS, get_lab
    from labs.interface.progress import SilentProgress

    burst = get_lab("burst-live")
    longest = burst.defaults() | {
        "arrivals": [334] * 10 + [333] * 20,  # 10,000 jobs, 30 lesson seconds
        "lesson_second_s": 38 / 32,  # the longest the form allows at 30 seconds
        "fixed_workers": 0, "min_workers": 0, "max_workers": 1, "per_worker": 1,
        "per_waiting": 10_000,  # slow pools: 10,000 jobs left to clean up
    }  # fmt: skip
    runs = [(lab.slug + ", defaults", lab, lab.defaults()) for lab in LABS if lab.cost]
    runs = [r for r in runs if r[1].kind == "experiment"]
    runs.append(("burst-live at its bounds: 30 s of arrivals, 10,000 jobs, slow pools",
                 burst, longest))  # fmt: skip
    print()
    print("| experiment | cost s | measured wall s | measured / cost |")
    print("| --- | ---: | ---: | ---: |")
    for label, lab, params in runs:
        problems = lab.check(params) if lab.check else {}
        if problems:
            raise SystemExit(f"{label}: refused by its own form: {problems}")
        started = time.perf_counter()
        lab.run(params, 1, SilentProgress())
        took = time.perf_counter() - started
        cost = lab.cost(params).seconds
        print(f"| {label} | {cost:.1f} | {took:.1f} | {took / cost:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=10.0, help="LAB_RUN_BUDGET_S")
    parser.add_argument("--experiments", action="store_true", help="time the experiments too")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.budget)
        return
    print(describe())
    simulations(args.budget)
    if args.experiments:
        experiments()


if __name__ == "__main__":
    main()
