"""How close the real experiments land to their formulas: the speed figures tests leave out.

Run by hand from the project root, on a quiet machine (the figures are wall-clock):

    .venv/bin/python bench/bench_experiments.py              # 5 rounds, about a minute
    .venv/bin/python bench/bench_experiments.py --rounds 1   # one round

Fan-out (lesson 07): measured time over N / (W x R) for 60 jobs at 100/s on 1 and 4 workers;
the tests only check that the measured time is never below the formula and that 4 workers
beat 1. Burst (lesson 12): the real peak backlog of each pool against the simulation's
(fixed 1500, scaled 800); the tests only check that scaling beats the fixed pool.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from labs.experiments.burst import burst  # noqa: E402
from labs.experiments.fanout import fanout  # noqa: E402


def median_text(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds

    ratios: dict[int, list[float]] = {1: [], 4: []}
    peaks: dict[str, list[float]] = {"fixed": [], "scaled": []}
    for _ in range(rounds):
        for workers in ratios:
            s = fanout(jobs=60, workers=workers, rate_per_worker=100, crashes=0)["summary"]
            ratios[workers].append(s["measured_over_formula"])
        s = burst(lesson_second_s=0.3, extra_seconds=1)["summary"]
        for pool in peaks:
            peaks[pool].append(s[f"peak_backlog_{pool}"] / s[f"sim_peak_backlog_{pool}"])

    print(f"rounds: {rounds}, cpus: {os.cpu_count()}")
    for workers, values in ratios.items():
        print(f"fan-out, {workers} worker(s): measured / formula {median_text(values)}")
    for pool, values in peaks.items():
        print(f"burst, {pool} pool: real peak / simulated peak {median_text(values)}")


if __name__ == "__main__":
    main()
