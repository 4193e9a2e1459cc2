"""Assignment 05's phase map: which spikes the service shakes off, and which trap it.

Each cell is one run of the trapped service with every control off. The grid's params
come from the model's specs; a few client and service params apply to every run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import params_from_specs
from labs.runners.common import model_errors
from labs.runs.progress import Progress
from labs.sim.capstone import LAB_PARAM_SPECS, phase_map
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.params import TrappedParams
from labs.sim.capstone.phase_map import PhaseMapParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import num

# trapped_service params the form offers for every run of the map.
SHARED = ("workers", "client_timeout_ms", "max_attempts")
# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED
TIME_LIMIT_S = 60  # up to 400 runs of the service

LAYOUT = (
    (
        "Spike size",
        (
            ("spike_min_rps", "Smallest spike (new requests/s)"),
            ("spike_max_rps", "Largest spike (new requests/s)"),
            ("spike_steps", "Spike sizes to try"),
        ),
    ),
    (
        "Spike duration",
        (
            ("duration_min_s", "Shortest spike"),
            ("duration_max_s", "Longest spike"),
            ("duration_steps", "Durations to try"),
        ),
    ),
    (
        "Base load",
        (
            ("base_min_rps", "Lowest normal load (requests/s)"),
            ("base_max_rps", "Highest normal load (requests/s)"),
            ("base_steps", "Normal loads to try"),
        ),
    ),
    (
        "Every run",
        (
            ("map_horizon_s", "Simulated time per run"),
            ("map_trigger_start_s", "Spike starts at"),
            ("workers", "Workers"),
            ("client_timeout_ms", "Caller's timeout for one attempt"),
            ("max_attempts", "Attempts per call"),
        ),
    ),
)
_SPECS = LAB_PARAM_SPECS["phase_map"] + tuple(
    spec for spec in LAB_PARAM_SPECS["trapped_service"] if spec["name"] in SHARED
)
PARAMS = params_from_specs(_SPECS, LAYOUT)
_GRID = {spec["name"] for spec in LAB_PARAM_SPECS["phase_map"]}


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The grid's own rules, then the biggest single run of it against the service's rules."""
    grid = {k: v for k, v in params.items() if k in _GRID}
    errors = model_errors(PhaseMapParams, grid)
    if errors:
        return errors
    start = params["map_trigger_start_s"]
    biggest = {
        "horizon_s": params["map_horizon_s"],
        "base_rps": params["base_max_rps"],
        "spike_rps": params["spike_max_rps"],
        "trigger_start_s": start,
        "trigger_end_s": start + params["duration_max_s"],
        "recover_at_s": params["map_horizon_s"],
        **{name: params[name] for name in SHARED},
    }
    return model_errors(TrappedParams, biggest)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Sweep the grid; the page's progress bar moves after every run."""
    return phase_map(seed=seed, on_progress=progress.update, **params)


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    timeout_s = p["client_timeout_ms"] / 1000
    lines = [
        f"Of {num(s['runs'])} spikes, the service shook off {num(s['recovered_runs'])} by "
        f"itself and {num(s['trapped_runs'])} left it trapped (no controls in any run).",
        f"Capacity is {num(s['capacity_rps'])} requests/s and a caller waits "
        f"{num(timeout_s)} s, so about {num(s['timeout_backlog'])} extra requests in the queue "
        "are enough to make callers time out and retry.",
    ]
    small, large = s["smallest_trapping_excess"], s["largest_recovering_excess"]
    if small is None:
        lines.append("No spike in this grid trapped it: try bigger or longer spikes.")
    elif large is None:
        lines.append("Every spike in this grid trapped it: try smaller or shorter spikes.")
    else:
        lines.append(
            f"Hidden capacity: the smallest spike that trapped it left {num(small)} requests more "
            f"than the workers could do; the largest it recovered from left {num(large)}. "
            "Past about one timeout's worth of queue, the retries keep the queue full."
        )
    return lines


FIGURES = (
    Figure("runs", "Runs", "int"),
    Figure("recovered_runs", "Runs that recovered by themselves", "int"),
    Figure("trapped_runs", "Runs that stayed trapped", "int"),
    Figure("capacity_rps", "Capacity", "float", "req/s"),
    Figure("timeout_backlog", "Backlog worth one timeout", "float", "requests"),
    Figure(
        "smallest_trapping_excess",
        "Smallest excess load that trapped",
        "float",
        "requests",
        nullable=True,
    ),
    Figure(
        "largest_recovering_excess",
        "Largest excess load that recovered",
        "float",
        "requests",
        nullable=True,
    ),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.phase_map_cost
