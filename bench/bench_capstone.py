"""Benchmark of the capstone model against the same model written with SimPy.

Run by hand from the project root:

    .venv/bin/python bench/bench_capstone.py            # everything (about 3 minutes)
    .venv/bin/python bench/bench_capstone.py --quick    # skip the slow 3000 s memory run

It times the default 300-second scenario and a 10x scenario (10x rates, workers and
queue) with the hand-written loop and with the SimPy peer, interleaved and best-of-N so
that a noisy neighbour on the machine hurts both alike; prints the figures both models
produce, so you can see they are the same model; times the default phase map; and
measures peak memory with tracemalloc at 300 s and 3000 s simulated.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.simpy_trapped import run_simpy  # noqa: E402
from labs.sim.capstone import RECOMMENDED_CONTROLS  # noqa: E402
from labs.sim.capstone.engine import simulate  # noqa: E402
from labs.sim.capstone.params import TrappedParams  # noqa: E402
from labs.sim.capstone.phase_map import phase_map  # noqa: E402

SEED = 5
TEN_X = {"base_rps": 800.0, "spike_rps": 2000.0, "workers": 80, "queue_limit": 20000}


def best_of(n: int, fn: Any) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(n):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def figures(series: dict[str, list[Any]]) -> dict[str, Any]:
    originals = sum(series["arrivals"])
    return {
        "peak_backlog": max(series["backlog"]),
        "final_backlog": series["backlog"][-1],
        "useful": sum(series["useful"]),
        "retries": sum(series["retries"]),
        "amplification": round((originals + sum(series["retries"])) / originals, 3),
    }


def compare(label: str, p: TrappedParams, ours_n: int, simpy_n: int) -> dict[str, Any]:
    ours_s = simpy_s = float("inf")
    ours = peer = None
    # Interleave the two so that background load on the machine hits both.
    for i in range(max(ours_n, simpy_n)):
        if i < ours_n:
            t, ours = best_of(1, lambda: simulate(p, SEED))
            ours_s = min(ours_s, t)
        if i < simpy_n:
            t, peer = best_of(1, lambda: run_simpy(p, SEED))
            simpy_s = min(simpy_s, t)
    row = {
        "scenario": label,
        "ours_s": ours_s,
        "ours_events": ours["events"],
        "ours_meps": ours["events"] / ours_s / 1e6,
        "simpy_s": simpy_s,
        "simpy_events": peer["events"],
        "simpy_meps": peer["events"] / simpy_s / 1e6,
        "ratio": simpy_s / ours_s,
    }
    print(
        f"{label:>4}: ours {ours_s * 1000:7.0f} ms, {ours['events']:>9,} events, "
        f"{row['ours_meps']:.2f} M events/s | SimPy {simpy_s * 1000:7.0f} ms, "
        f"{peer['events']:>9,} events, {row['simpy_meps']:.2f} M events/s | "
        f"SimPy / ours = {row['ratio']:.1f}x"
    )
    print(f"      ours : {figures(ours['series'])}")
    print(f"      SimPy: {figures(peer['series'])}")
    return row


def memory(horizon_s: int) -> tuple[float, float]:
    """Peak traced memory of one default run, and how much of it the result keeps (MB)."""
    p = TrappedParams(horizon_s=horizon_s)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = simulate(p, SEED)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return (peak - base) / 1e6, (kept - base) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 3000 s memory run")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print("command: python bench/bench_capstone.py" + (" --quick" if args.quick else ""))
    one = compare("1x", TrappedParams(), ours_n=5, simpy_n=3)
    ten = compare("10x", TrappedParams(**TEN_X), ours_n=3, simpy_n=1)

    t, run = best_of(3, lambda: simulate(TrappedParams(**RECOMMENDED_CONTROLS), SEED))
    print(f"controls on (1x): {t * 1000:.0f} ms, {run['events']:,} events")

    ticks: list[int] = []
    start = time.perf_counter()
    grid = phase_map(seed=SEED, on_progress=lambda done, total: ticks.append(done))
    map_s = time.perf_counter() - start
    s = grid["summary"]
    print(
        f"phase map: {s['runs']} runs in {map_s:.2f} s "
        f"({s['recovered_runs']} recovered, {s['trapped_runs']} trapped)"
    )

    for horizon in (300,) if args.quick else (300, 3000):
        peak, kept = memory(horizon)
        print(
            f"memory, {horizon} s simulated: peak {peak:.2f} MB "
            f"(the result it returns, per-second series and ledger, holds {kept:.2f} MB)"
        )
    print(
        f"summary: SimPy / ours {one['ratio']:.1f}x at 1x, {ten['ratio']:.1f}x at 10x; "
        f"phase map {map_s:.1f} s"
    )


if __name__ == "__main__":
    main()
