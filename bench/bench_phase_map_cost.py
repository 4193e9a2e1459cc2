"""The phase map's cost bound against its real cost, at corners of the form's bounds.

`labs.sim.capstone.cost.phase_map_cost` is checked against the run budget before a map is
queued (ten times it with "Also run 10 seeds"). This runs one map per corner (each with 3
seeds, the worst kept) and prints its CPU time (`time.process_time`: the machine is shared,
so wall time counts other processes' turns), the bound, and the CPU per counted attempt
(new requests x `max_attempts`) and per cell, which is what the bound's constants are set
from (docs/benchmarks.md, "The phase map's cost bound, calibrated"). Usage:

    .venv/bin/python bench/bench_phase_map_cost.py [corner ...]
"""

from __future__ import annotations

import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import describe  # noqa: E402
from labs.sim.capstone import phase_map  # noqa: E402
from labs.sim.capstone.cost import phase_map_cost  # noqa: E402
from labs.sim.capstone.phase_map import PhaseMapParams  # noqa: E402

DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(PhaseMapParams)}
# Every cell trapped at high rates: the most work per counted attempt found.
BUSY = {"workers": 1000, "client_timeout_ms": 10, "max_attempts": 10, "map_horizon_s": 20,
        "map_trigger_start_s": 0, "duration_min_s": 0}  # fmt: skip
CORNERS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "6x6 grid 100-400/s x 5-30 s, 10 attempts, 10 workers": {
        "spike_max_rps": 400, "spike_steps": 6, "duration_min_s": 5, "duration_max_s": 30,
        "duration_steps": 6, "max_attempts": 10, "workers": 10},
    "1 worker, 10 ms timeout, 10 attempts (all trapped)": {
        "workers": 1, "client_timeout_ms": 10, "max_attempts": 10},
    "2x2 grid 1,000-20,000/s on 5,000/s, 1,000 workers, 10 ms, 10 attempts": BUSY | {
        "spike_min_rps": 1000, "spike_max_rps": 20000, "spike_steps": 2,
        "base_min_rps": 5000, "base_max_rps": 5000, "duration_steps": 2},
    "one 300,000-request cell, 1,000 workers, 10 ms, 10 attempts": BUSY | {
        "spike_min_rps": 15000, "spike_max_rps": 15000, "spike_steps": 1,
        "base_min_rps": 15000, "base_max_rps": 15000, "duration_max_s": 0,
        "duration_steps": 1},
    "400 cells of 600 s, almost no requests": {
        "spike_min_rps": 0, "spike_max_rps": 1, "spike_steps": 20, "duration_min_s": 0,
        "duration_max_s": 1, "duration_steps": 20, "base_min_rps": 1, "base_max_rps": 1,
        "map_horizon_s": 600, "map_trigger_start_s": 0},
}  # fmt: skip


def main(names: list[str]) -> None:
    print(describe())
    print("| corner | cells | counted attempts | bound s | CPU s (worst of 3) | CPU / bound "
          "| µs per attempt |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in names or list(CORNERS):
        params = DEFAULTS | {"max_attempts": 3} | CORNERS[name]
        grid = PhaseMapParams(**{k: v for k, v in params.items() if k in DEFAULTS})
        attempts = grid.expected_requests * params["max_attempts"]
        bound = phase_map_cost(params).seconds
        worst, cells = 0.0, 0
        for seed in (1, 2, 3):
            start = time.process_time()
            result = phase_map(seed=seed, **params)
            worst = max(worst, time.process_time() - start)
            cells = result["summary"]["runs"]
        print(f"| {name} | {cells} | {attempts:,.0f} | {bound:.2f} | {worst:.3f} | "
              f"{worst / bound:.2f} | {worst / attempts * 1e6:.3f} |")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
