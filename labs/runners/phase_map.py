"""Assignment 05's phase map: which spikes the service shakes off, and which trap it.

Each cell is one run of the trapped service with every control off. The grid's params
come from the model's specs; a few client and service params apply to every run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.params import params_from_specs
from labs.interface.progress import Progress
from labs.runners.capstone_rules import phase_map_errors, with_limits
from labs.runners.common import model_errors
from labs.sim.capstone import LAB_PARAM_SPECS, phase_map
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.phase_map import PhaseMapParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.sim.capstone.trapped_params import TrappedParams
from labs.text import gettext, gettext_noop, num

# trapped_service params the form offers for every run of the map.
SHARED = ("workers", "client_timeout_ms", "max_attempts")
# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED
TIME_LIMIT_S = 60  # up to 400 runs of the service

LAYOUT = (
    (
        gettext_noop("Spike size"),
        (
            ("spike_min_rps", gettext_noop("Smallest spike (new requests/s)")),
            ("spike_max_rps", gettext_noop("Largest spike (new requests/s)")),
            ("spike_steps", gettext_noop("Spike sizes to try")),
        ),
    ),
    (
        gettext_noop("Spike duration"),
        (
            ("duration_min_s", gettext_noop("Shortest spike")),
            ("duration_max_s", gettext_noop("Longest spike")),
            ("duration_steps", gettext_noop("Durations to try")),
        ),
    ),
    (
        gettext_noop("Base load"),
        (
            ("base_min_rps", gettext_noop("Lowest normal load (requests/s)")),
            ("base_max_rps", gettext_noop("Highest normal load (requests/s)")),
            ("base_steps", gettext_noop("Normal loads to try")),
        ),
    ),
    (
        gettext_noop("Every run"),
        (
            ("map_horizon_s", gettext_noop("Simulated time per run")),
            ("map_trigger_start_s", gettext_noop("Spike starts at")),
            ("workers", gettext_noop("Workers")),
            ("client_timeout_ms", gettext_noop("Caller's timeout for one attempt")),
            ("max_attempts", gettext_noop("Attempts per call")),
        ),
    ),
)
_SPECS = LAB_PARAM_SPECS["phase_map"] + tuple(
    spec for spec in LAB_PARAM_SPECS["trapped_service"] if spec["name"] in SHARED
)
PARAMS = with_limits(params_from_specs(_SPECS, LAYOUT), "phase_map")
_GRID = {spec["name"] for spec in LAB_PARAM_SPECS["phase_map"]}


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The grid's own rules, then the biggest single run of it against the service's rules."""
    grid = {k: v for k, v in params.items() if k in _GRID}
    errors = phase_map_errors(grid) or model_errors(PhaseMapParams, grid)
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
        gettext(
            "Of %(runs)s spikes, the service shook off %(ok)s by itself and %(trapped)s left it "
            "trapped (no controls in any run)."
        )
        % {
            "runs": num(s["runs"]),
            "ok": num(s["recovered_runs"]),
            "trapped": num(s["trapped_runs"]),
        },
        gettext(
            "Capacity is %(cap)s requests/s and a caller waits %(wait)s s, so about %(n)s extra "
            "requests in the queue are enough to make callers time out and retry."
        )
        % {
            "cap": num(s["capacity_rps"]),
            "wait": num(timeout_s),
            "n": num(s["timeout_backlog"]),
        },
    ]
    small, large = s["smallest_trapping_excess"], s["largest_recovering_excess"]
    if small is None:
        lines.append(gettext("No spike in this grid trapped it: try bigger or longer spikes."))
    elif large is None:
        lines.append(gettext("Every spike in this grid trapped it: try smaller or shorter spikes."))
    else:
        lines.append(
            gettext(
                "Hidden capacity: the smallest spike that trapped it left %(small)s requests more "
                "than the workers could do; the largest it recovered from left %(large)s. Past "
                "about one timeout's worth of queue, the retries keep the queue full."
            )
            % {"small": num(small), "large": num(large)}
        )
    return lines


FIGURES = (
    Figure("runs", gettext_noop("Runs"), "int"),
    Figure("recovered_runs", gettext_noop("Runs that recovered by themselves"), "int"),
    Figure("trapped_runs", gettext_noop("Runs that stayed trapped"), "int"),
    Figure("capacity_rps", gettext_noop("Capacity"), "float", gettext_noop("req/s")),
    Figure(
        "timeout_backlog",
        gettext_noop("Backlog worth one timeout"),
        "float",
        gettext_noop("requests"),
    ),
    Figure(
        "smallest_trapping_excess",
        gettext_noop("Smallest excess load that trapped"),
        "float",
        gettext_noop("requests"),
        nullable=True,
    ),
    Figure(
        "largest_recovering_excess",
        gettext_noop("Largest excess load that recovered"),
        "float",
        gettext_noop("requests"),
        nullable=True,
    ),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.phase_map_cost
