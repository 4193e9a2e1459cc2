"""The scaling-signal, database-knee and pool-trap labs: a run at the defaults and the
costliest run their bounds let through, timed (wall and CPU) through each lab's runner.

Their forms have no cost budget of their own (`labs.sim.capstone.cost` is the capstone's);
the bounds on their params are what keep a run short, and this checks that they do.
Usage:

    .venv/bin/python bench/bench_scale_labs.py
"""

from __future__ import annotations

import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

import django  # noqa: E402

django.setup()

from labs.catalogue.entries import get_lab  # noqa: E402
from labs.interface.progress import SilentProgress  # noqa: E402
from labs.runs.execution import run_lab  # noqa: E402

RUNS = [
    ("scaling-signal", "defaults", {}),
    (
        "scaling-signal",
        "600 s of 100,000 jobs/s, 1 job per worker-second, 1,000 workers",
        {"arrivals": [100_000] * 600, "per_worker": 1, "max_workers": 1_000},
    ),
    ("db-knee", "defaults", {}),
    (
        "db-knee",
        "600 s, 2,000 workers, a 2,000-point curve",
        {"seconds": 600, "max_workers": 2_000, "cap": 2_000, "max_connections": 10_000},
    ),
    ("pool-trap", "defaults", {}),
    (
        "pool-trap",
        "1,000 calls/s for 15 s, 3 retries (60,000 attempts, the bound)",
        {"rate_per_s": 1_000, "horizon_s": 15, "slow_from_s": 2, "slow_until_s": 6},
    ),
    (
        "pool-trap",
        "150 calls/s for 100 s, 3 retries, no retries from 40 s (the try-next link)",
        {"horizon_s": 100, "control": "no_retries"},
    ),
]


def main() -> None:
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    for slug, label, changes in RUNS:
        lab = get_lab(slug)
        assert lab is not None
        params = lab.defaults() | changes
        best_wall, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            run_lab(lab, params, lab.default_seed, SilentProgress())
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        print(f"| {slug} | {label} | {1000 * best_wall:,.0f} | {1000 * best_cpu:,.0f} |")


if __name__ == "__main__":
    main()
