"""Which triggers a service shakes off by itself, and which leave it trapped.

Runs the trapped service over a grid of spike rate x spike duration (and optionally
several base loads) with every recovery control off, and marks each run recovered or
trapped. The boundary is roughly where the spike leaves more queue than the clients'
timeout can absorb: once the queue delay passes the timeout, retries take over.

The map uses a shorter horizon than the main lab so that a hundred runs come back in a
few seconds; the trap, once set, does not loosen with more simulated time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from labs.sim.capstone import fast
from labs.sim.capstone.specs import check_bounds, check_seed, param, param_specs
from labs.sim.capstone.summary import recovered_at
from labs.sim.capstone.trapped_params import TrappedParams, gettext_noop

DEFAULT_SEED = 5
MAX_RUNS = 400
MAX_GRID_REQUESTS = 1_000_000  # over all runs: about twice the default grid's 490,000
# The grid's ranges: (low end, high end, how many values to try between them).
RANGES = (
    ("spike_min_rps", "spike_max_rps", "spike_steps"),
    ("duration_min_s", "duration_max_s", "duration_steps"),
    ("base_min_rps", "base_max_rps", "base_steps"),
)


@dataclass(frozen=True)
class PhaseMapParams:
    """The grid to sweep; any trapped-service param may be passed as well, for every run."""

    spike_min_rps: float = param(
        100.0, gettext_noop("Smallest spike rate in the grid."), min=0, max=50000
    )
    spike_max_rps: float = param(
        190.0, gettext_noop("Largest spike rate in the grid."), min=0, max=50000
    )
    spike_steps: int = param(10, gettext_noop("Spike rates to try, evenly spaced."), min=1, max=40)
    duration_min_s: float = param(1.0, gettext_noop("Shortest spike in the grid."), min=0, max=600)
    duration_max_s: float = param(10.0, gettext_noop("Longest spike in the grid."), min=0, max=600)
    duration_steps: int = param(
        10, gettext_noop("Spike durations to try, evenly spaced."), min=1, max=40
    )
    base_min_rps: float = param(
        80.0, gettext_noop("Lowest base load in the grid."), min=1, max=20000
    )
    base_max_rps: float = param(
        80.0, gettext_noop("Highest base load in the grid."), min=1, max=20000
    )
    base_steps: int = param(
        1,
        gettext_noop("Normal loads to try, from the lowest up (1 = the lowest alone)."),
        min=1,
        max=10,
    )
    map_horizon_s: int = param(60, gettext_noop("Simulated seconds per run."), min=20, max=600)
    map_trigger_start_s: float = param(
        5.0, gettext_noop("When each run's spike starts."), min=0, max=600
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        for low, high, steps in RANGES:
            # With one step only the low end is tried, so the high end's order is moot.
            if getattr(self, steps) > 1 and getattr(self, high) < getattr(self, low):
                raise ValueError(f"{high} must be >= {low} ({getattr(self, low)})")
        runs = len(self.spikes) * len(self.durations) * len(self.bases)
        if runs > MAX_RUNS:
            raise ValueError(
                f"spike_steps * duration_steps * base_steps must be <= {MAX_RUNS}, got {runs}"
            )
        if self.map_trigger_start_s + max(self.durations) > self.map_horizon_s:
            raise ValueError(
                f"map_trigger_start_s + duration_max_s must be <= map_horizon_s "
                f"({self.map_horizon_s}), got {self.map_trigger_start_s + max(self.durations)}"
            )
        # Here rather than in phase_map(), so a form checking the grid refuses it too.
        if self.expected_requests > MAX_GRID_REQUESTS:
            raise ValueError(
                f"the grid's expected new requests over all runs must be <= "
                f"{MAX_GRID_REQUESTS:,}, got {self.expected_requests:,.0f}: use fewer steps "
                "or a shorter map_horizon_s"
            )

    @property
    def spikes(self) -> list[float]:
        return grid_steps(self.spike_min_rps, self.spike_max_rps, self.spike_steps)

    @property
    def durations(self) -> list[float]:
        return grid_steps(self.duration_min_s, self.duration_max_s, self.duration_steps)

    @property
    def bases(self) -> list[float]:
        return grid_steps(self.base_min_rps, self.base_max_rps, self.base_steps)

    @property
    def expected_requests(self) -> float:
        """New requests over every run of the grid: what sets how long the map takes."""
        return sum(
            base * (self.map_horizon_s - duration) + spike * duration
            for base in self.bases
            for duration in self.durations
            for spike in self.spikes
        )


PARAM_SPECS = param_specs(PhaseMapParams)


def simulate(p: TrappedParams, seed: int) -> dict[str, Any]:
    """One run of the map: lean (no payments ledger, no per-answer waits), since the map
    reads only the queue's figures, which a lean run gives exactly as a full one does."""
    return fast.simulate(p, seed, lean=True)


def grid_steps(low: float, high: float, n: int) -> list[float]:
    """The values a range of the grid tries: `n` evenly spaced from `low` to `high`.

    One step tries `low` alone; a range whose two ends are equal is that one value
    however many steps it asks for (ten runs of one spike would only repeat a cell),
    and the lab's headline says so (`labs.course.assignment_05.phase_map.run`).
    """
    if n <= 1 or high == low:
        return [low]
    return [round(low + (high - low) * i / (n - 1), 3) for i in range(n)]


def phase_map(
    seed: int = DEFAULT_SEED,
    on_progress: Callable[[int, int], None] | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Sweep spike rate x duration (x base load); return which runs recovered by themselves.

    `on_progress(done, total)` is called after every run, so a page can show a bar.
    Params named in `PARAM_SPECS` shape the grid; any other trapped-service param (for
    example `max_attempts=1` or `client_timeout_ms=2000`) applies to every run.
    """
    check_seed(seed)
    grid_names = {f.name for f in fields(PhaseMapParams)}
    grid = PhaseMapParams(**{k: v for k, v in params.items() if k in grid_names})
    shared = {k: v for k, v in params.items() if k not in grid_names}
    for name in ("horizon_s", "trigger_start_s", "trigger_end_s", "spike_rps", "base_rps"):
        if name in shared:
            raise ValueError(f"{name} is set by the grid; use the phase map's own params")
    spikes, durations, bases = grid.spikes, grid.durations, grid.bases
    total = len(spikes) * len(durations) * len(bases)
    start = grid.map_trigger_start_s
    expected = sum(
        base * (grid.map_horizon_s - duration) + spike * duration
        for base in bases
        for duration in durations
        for spike in spikes
    )
    if expected > MAX_GRID_REQUESTS:
        raise ValueError(
            f"the grid's expected new requests over all runs must be <= {MAX_GRID_REQUESTS:,}, "
            f"got {expected:,.0f}: use fewer steps or a shorter map_horizon_s"
        )

    rows: dict[str, list[Any]] = {
        k: []
        for k in (
            "run",
            "base_rps",
            "spike_rps",
            "duration_s",
            "excess_requests",
            "recovered",
            "recovered_at_s",
            "peak_backlog",
            "final_backlog",
            "amplification",
        )
    }
    matrix: list[list[list[bool]]] = []  # [base][duration][spike]
    capacity = 0.0
    timeout_s = 0.0
    done = 0
    for base in bases:
        plane = []
        for duration in durations:
            line = []
            for spike in spikes:
                p = TrappedParams(
                    **{
                        "horizon_s": grid.map_horizon_s,
                        "base_rps": base,
                        "spike_rps": spike,
                        "trigger_start_s": start,
                        "trigger_end_s": start + duration,
                        "recover_at_s": float(grid.map_horizon_s),  # no controls
                        **shared,
                    }
                )
                capacity, timeout_s = p.capacity_rps, p.client_timeout_ms / 1000.0
                raw = simulate(p, seed)
                s = raw["series"]
                rec = recovered_at(s, p)
                originals = sum(s["arrivals"])
                rows["run"].append(done)
                rows["base_rps"].append(base)
                rows["spike_rps"].append(spike)
                rows["duration_s"].append(duration)
                rows["excess_requests"].append(round(max(0.0, spike - capacity) * duration, 1))
                rows["recovered"].append(rec is not None)
                rows["recovered_at_s"].append(rec)
                rows["peak_backlog"].append(max(s["backlog"]))
                rows["final_backlog"].append(s["backlog"][-1])
                rows["amplification"].append(
                    round((originals + sum(s["retries"])) / originals, 3) if originals else 0.0
                )
                line.append(rec is not None)
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
            plane.append(line)
        matrix.append(plane)

    pairs = list(zip(rows["excess_requests"], rows["recovered"], strict=True))
    trapped_excess = [excess for excess, ok in pairs if not ok]
    recovered_excess = [excess for excess, ok in pairs if ok]
    summary = {
        "runs": total,
        "recovered_runs": sum(rows["recovered"]),
        "trapped_runs": total - sum(rows["recovered"]),
        "capacity_rps": round(capacity, 3),
        # One timeout's worth of queue: past roughly this much backlog, callers time out.
        "timeout_backlog": round(capacity * timeout_s, 1),
        "smallest_trapping_excess": min(trapped_excess) if trapped_excess else None,
        "largest_recovering_excess": max(recovered_excess) if recovered_excess else None,
    }
    return {
        "summary": summary,
        # One entry per run (not per second): the map has no time axis.
        "series": rows,
        "tables": {
            "grid": {
                "spike_rps": spikes,
                "duration_s": durations,
                "base_rps": bases,
                "recovered": matrix,
            }
        },
    }
