"""What a capstone run will cost a worker, known from its parameters before it is queued.

A run's time is set by how many attempts the engine simulates, and the worst case is a
service so trapped that every call uses all its attempts: new requests x
`max_attempts ** retry_layers`. That is what is counted here (an upper bound, not a
forecast), times the seconds one attempt took at worst on the reference machine
(`bench/bench_worst_case.py` measures it and docs/benchmarks.md has the figures). The site
refuses a run whose bound is over its budget, so no parameters within the form's limits
can hold a worker for longer than the budget says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Worst-case seconds of one core per simulated attempt, per model (measured, rounded up).
SECONDS_PER_ATTEMPT = {
    "trapped": 2.5e-6,
    # A phase map's cells are lean runs (no ledger, no per-answer waits). Measured on the
    # loaded 2-core VM (load 18-19, CPU seconds by `time.process_time`, worst of 3 seeds,
    # docs/benchmarks.md "The phase map's cost bound, calibrated"): 0.095-0.10 µs per
    # counted attempt for grids of 1-10 workers, up to 0.26 µs when 1,000 workers face
    # 15,000-20,000 requests/s with a 10 ms timeout (every cell trapped, the worst corner
    # found; 0.28-0.30 µs at the busiest moments). 0.6 µs is twice that corner and six times
    # a default map's, and still lets ten default maps (the 10-seed view) fit a 10 s budget.
    "phase_map": 0.6e-6,
}
# Seconds per simulated read or job for the two single-queue models. A read's worst is a
# cold cache whose every read starts a fetch of its own: 3.3-4.4 µs of CPU on the loaded
# 2-core VM (docs/benchmarks.md), so 8 µs leaves room.
SECONDS_PER_READ = 8.0e-6
SECONDS_PER_JOB = 4.0e-6
# A phase map also pays per grid cell (a model built, a series kept) and per simulated
# second of each cell: 400 cells of 600 s and almost no requests took 0.33 s (about 1 µs a
# cell-second once its attempts are counted), 400 cells of 20 s took 0.03 s (0.07 ms a
# cell); the bound takes twice the one and four times the other.
SECONDS_PER_CELL = 0.0003
SECONDS_PER_CELL_SECOND = 2.0e-6


@dataclass(frozen=True)
class Cost:
    """An upper bound on a run's worker time, and the parameters that set it."""

    seconds: float
    drivers: tuple[str, ...]  # the parameters to lower to make the run cheaper


def _get(params: Mapping[str, Any], name: str, default: float) -> float:
    value = params.get(name, default)
    return float(value) if value is not None else float(default)


def _expected_requests(params: Mapping[str, Any]) -> float:
    horizon = _get(params, "horizon_s", 300)
    start = _get(params, "trigger_start_s", 0)
    end = _get(params, "trigger_end_s", start)
    trigger = max(0.0, min(end, horizon) - start)
    base = _get(params, "base_rps", 80)
    spike = _get(params, "spike_rps", base)
    return base * (horizon - trigger) + spike * trigger


def attempts_per_call(params: Mapping[str, Any]) -> int:
    return int(_get(params, "max_attempts", 3)) ** int(_get(params, "retry_layers", 1))


def trapped_cost(params: Mapping[str, Any]) -> Cost:
    """The trapped service: every new request, every attempt of every layer."""
    attempts = _expected_requests(params) * attempts_per_call(params)
    return Cost(
        attempts * SECONDS_PER_ATTEMPT["trapped"],
        ("horizon_s", "base_rps", "spike_rps", "max_attempts", "retry_layers"),
    )


def _steps(low: float, high: float, n: int) -> list[float]:
    """The values a phase map's range tries, as `phase_map.grid_steps` spaces them (equal
    ends are one value), unrounded: this module stays free of the model's imports."""
    if n <= 1 or high == low:
        return [low]
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def phase_map_cost(params: Mapping[str, Any]) -> Cost:
    """A phase map: the sum of its cells' trapped-service bounds, plus a price per cell."""
    spikes = _steps(
        _get(params, "spike_min_rps", 0),
        _get(params, "spike_max_rps", 0),
        int(_get(params, "spike_steps", 1)),
    )
    durations = _steps(
        _get(params, "duration_min_s", 0),
        _get(params, "duration_max_s", 0),
        int(_get(params, "duration_steps", 1)),
    )
    bases = _steps(
        _get(params, "base_min_rps", 0),
        _get(params, "base_max_rps", 0),
        int(_get(params, "base_steps", 1)),
    )
    horizon = _get(params, "map_horizon_s", 60)
    requests = sum(
        base * (horizon - duration) + spike * duration
        for base in bases
        for duration in durations
        for spike in spikes
    )
    cells = len(spikes) * len(durations) * len(bases)
    seconds = requests * attempts_per_call(params) * SECONDS_PER_ATTEMPT["phase_map"] + cells * (
        SECONDS_PER_CELL + horizon * SECONDS_PER_CELL_SECOND
    )
    return Cost(
        seconds,
        ("spike_steps", "duration_steps", "base_steps", "map_horizon_s", "max_attempts"),
    )


def cold_cache_cost(params: Mapping[str, Any]) -> Cost:
    reads = _get(params, "offered_rps", 0) * _get(params, "horizon_s", 60)
    return Cost(reads * SECONDS_PER_READ, ("offered_rps", "horizon_s"))


def job_cost_cost(params: Mapping[str, Any]) -> Cost:
    jobs = _get(params, "arrival_rps", 0) * _get(params, "horizon_s", 600)
    return Cost(jobs * SECONDS_PER_JOB, ("arrival_rps", "horizon_s"))
