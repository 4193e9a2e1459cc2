"""Benchmark of the capstone loop (compiled and pure Python) against a tuned SimPy peer.

Run from the project root, on a machine as quiet as you can get:

    .venv/bin/python bench/bench_capstone.py            # everything (a few minutes)
    .venv/bin/python bench/bench_capstone.py --quick    # no 10x scenario, no 3000 s memory run

It times three implementations of the same model side by side, interleaved and best-of-N
so that a noisy neighbour hurts all alike: the compiled loop the site runs
(`labs.sim.capstone.fast`, built by ./dev), the pure-Python reference
(`labs.sim.capstone.engine`), and the tuned SimPy peer (`bench/simpy_trapped.py`). It
prints the figures each produces (they must match), wall and CPU time, the default
phase map (100 runs), and peak memory of the reference loop with tracemalloc.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import describe  # noqa: E402
from bench.simpy_trapped import run_simpy  # noqa: E402
from labs.sim.capstone import RECOMMENDED_CONTROLS, engine, fast  # noqa: E402
from labs.sim.capstone.phase_map import phase_map  # noqa: E402
from labs.sim.capstone.trapped_params import TrappedParams  # noqa: E402

SEED = 5
TEN_X = {"base_rps": 800.0, "spike_rps": 2000.0, "workers": 80, "queue_limit": 20000}
MODELS = {
    "compiled": fast.simulate,
    "python": engine.simulate,
    "simpy": run_simpy,
}


def timed(fn: Any) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one call, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def figures(raw: dict[str, Any]) -> dict[str, Any]:
    series = raw["series"]
    originals = sum(series["arrivals"])
    return {
        "arrivals": originals,
        "peak_backlog": max(series["backlog"]),
        "final_backlog": series["backlog"][-1],
        "useful": sum(series["useful"]),
        "retries": sum(series["retries"]),
        "amplification": round((originals + sum(series["retries"])) / originals, 3),
        "payments": raw["ledger"].total,
    }


def compare(label: str, p: TrappedParams, rounds: dict[str, int]) -> dict[str, Any]:
    """Best wall and CPU time of each model over its rounds, interleaved; their figures."""
    best = {name: (float("inf"), float("inf")) for name in rounds}
    results: dict[str, Any] = {}
    for i in range(max(rounds.values())):
        for name, n in rounds.items():
            if i < n:
                wall, cpu, results[name] = timed(lambda name=name: MODELS[name](p, SEED))
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    print(f"{label}:")
    for name in rounds:
        wall, cpu = best[name]
        print(
            f"  {name:>8}: {wall * 1000:8.0f} ms wall, {cpu * 1000:8.0f} ms CPU, "
            f"{results[name]['events']:>9,} events | {figures(results[name])}"
        )
    row = {name: best[name] for name in rounds}
    for name in rounds:
        if name != "simpy" and "simpy" in rounds:
            wall_ratio = best["simpy"][0] / best[name][0]
            cpu_ratio = best["simpy"][1] / best[name][1]
            print(f"  SimPy / {name}: {wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU")
    same = len({str(figures(r)) for r in results.values()}) == 1
    print(f"  same figures in all: {'yes' if same else 'NO'}")
    return row


def memory(horizon_s: int) -> tuple[float, float]:
    """Peak traced memory of one default run of the reference loop, and what its result keeps."""
    p = TrappedParams(horizon_s=horizon_s)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = engine.simulate(p, SEED)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return (peak - base) / 1e6, (kept - base) / 1e6


def machine() -> str:
    return f"{describe()}; simpy {version('simpy')}, Cython {version('Cython')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10x and 3000 s runs")
    args = parser.parse_args()
    print(machine())
    print("command: python bench/bench_capstone.py" + (" --quick" if args.quick else ""))
    if not fast.COMPILED:
        print("the compiled loop is not built (./dev builds it): 'compiled' runs the reference")

    one = compare("1x (defaults)", TrappedParams(), {"compiled": 7, "python": 5, "simpy": 3})
    if not args.quick:
        compare("10x", TrappedParams(**TEN_X), {"compiled": 3, "python": 2, "simpy": 1})
    compare(
        "controls on (1x, no SimPy peer)",
        TrappedParams(**RECOMMENDED_CONTROLS),
        {"compiled": 5, "python": 3},
    )

    maps = []
    for _ in range(3):
        wall, cpu, grid = timed(lambda: phase_map(seed=SEED))
        maps.append((wall, cpu))
    wall, cpu = min(maps)
    s = grid["summary"]
    print(
        f"phase map (compiled): {s['runs']} runs, best of 3: {wall:.2f} s wall, {cpu:.2f} s CPU "
        f"({s['recovered_runs']} recovered, {s['trapped_runs']} trapped)"
    )

    for horizon in (300,) if args.quick else (300, 3000):
        peak, kept = memory(horizon)
        print(
            f"memory (reference loop), {horizon} s simulated: peak {peak:.2f} MB "
            f"(the result it returns holds {kept:.2f} MB)"
        )
    simpy_wall, compiled_wall = one["simpy"][0], one["compiled"][0]
    print(
        f"summary: SimPy / compiled {simpy_wall / compiled_wall:.1f}x at 1x; "
        f"phase map {wall:.2f} s wall, {cpu:.2f} s CPU; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
