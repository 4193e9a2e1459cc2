"""Assignment 05's phase map: which spikes the service shakes off, and which trap it.

Each cell is one run of the trapped service with every control off. The grid's params
come from the model's specs; a few client and service params apply to every run.

"Also run 10 seeds" repeats the whole map with the next nine seeds in the same run and
counts, cell by cell, how many of the ten left the service trapped: a cell near the border
(a spike at about the service's capacity) can go either way, and one seed hides that. The
map does not take the catalogue's 20-seed spread (`labs.catalogue.spread`): its figure is a
count per cell, not one number, and ten maps are what its cost bound lets through.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, params_from_specs
from labs.interface.progress import Progress
from labs.runners.capstone_rules import grid_notes, grid_top, phase_map_errors, with_limits
from labs.runners.common import model_errors
from labs.sim.capstone import LAB_PARAM_SPECS, phase_map
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.phase_map import PhaseMapParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.sim.capstone.trapped_params import TrappedParams
from labs.text import SEED_MAX, gettext, gettext_noop, num

# trapped_service params the form offers for every run of the map.
SHARED = ("workers", "client_timeout_ms", "max_attempts")
# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED
TIME_LIMIT_S = 60  # up to 400 runs of the service, or ten maps within the cost bound
SEEDS = 10  # the maps "Also run 10 seeds" draws
TEN_SEEDS = Param(
    "ten_seeds",
    gettext_noop("Also run 10 seeds"),
    "bool",
    False,
    gettext_noop(
        "Ticked: the same map is drawn again with the next 9 seeds, and a second map shows "
        "how often each cell was trapped."
    ),
    group=gettext_noop("Randomness"),  # beside the seed (labs.web.forms)
)

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
PARAMS = (*with_limits(params_from_specs(_SPECS, LAYOUT), "phase_map"), TEN_SEEDS)
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
        "base_rps": grid_top(params, "base_min_rps", "base_max_rps", "base_steps"),
        "spike_rps": grid_top(params, "spike_min_rps", "spike_max_rps", "spike_steps"),
        "trigger_start_s": start,
        "trigger_end_s": start
        + grid_top(params, "duration_min_s", "duration_max_s", "duration_steps"),
        "recover_at_s": params["map_horizon_s"],
        **{name: params[name] for name in SHARED},
    }
    return model_errors(TrappedParams, biggest)


def seeds_from(seed: int) -> list[int]:
    """The student's seed and the next nine, wrapping below SEED_MAX."""
    return [(seed + i) % (SEED_MAX + 1) for i in range(SEEDS)]


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Sweep the grid; the page's progress bar moves after every run.

    With `ten_seeds` ticked, the grid is swept for ten seeds and the result is the first
    seed's map with `tables["seed_counts"]`: per cell, in how many seeds it stayed trapped.
    """
    own = {k: v for k, v in params.items() if k != TEN_SEEDS.name}
    if not params.get(TEN_SEEDS.name):
        return phase_map(seed=seed, on_progress=progress.update, **own)
    seeds = seeds_from(seed)
    maps = []
    for i, s in enumerate(seeds):

        def moved(done: int, total: int, before: int = i) -> None:
            progress.update(before * total + done, len(seeds) * total)

        maps.append(phase_map(seed=s, on_progress=moved, **own))
        if progress.should_stop():
            break  # the task marks the run stopped; the counts say how many maps they cover
    result = maps[0]
    result["tables"]["seed_counts"] = {
        "seeds": seeds[: len(maps)],
        "trapped": trapped_counts(maps),
        "median_peak": median_peaks(maps),
    }
    return result


def trapped_counts(maps: list[dict[str, Any]]) -> list[list[list[int]]]:
    """[base][duration][spike]: in how many of `maps` the cell stayed trapped."""
    grids = [m["tables"]["grid"]["recovered"] for m in maps]
    return [
        [
            [sum(not g[b][d][x] for g in grids) for x in range(len(line))]
            for d, line in enumerate(plane)
        ]
        for b, plane in enumerate(grids[0])
    ]


def median_peaks(maps: list[dict[str, Any]]) -> list[list[list[float]]]:
    """[base][duration][spike]: the queue's peak in each cell, the median over `maps` (one
    trapped seed's full queue would swamp a mean)."""
    grid = maps[0]["tables"]["grid"]
    peaks = [m["series"]["peak_backlog"] for m in maps]  # one per run, spikes fastest
    width, depth = len(grid["spike_rps"]), len(grid["duration_s"])
    return [
        [
            [
                round(statistics.median(p[(b * depth + d) * width + x] for p in peaks), 1)
                for x in range(width)
            ]
            for d in range(depth)
        ]
        for b in range(len(grid["base_rps"]))
    ]


def noisy_cells(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cells trapped in some seeds but not all, closest to an even split first."""
    counts = (result.get("tables") or {}).get("seed_counts")
    if not counts:
        return []
    g, n = result["tables"]["grid"], len(counts["seeds"])
    capacity = result["summary"]["capacity_rps"]
    cells = [
        {
            "base": base,
            "spike": spike,
            "duration": duration,
            "trapped": k,
            "seeds": n,
            "load": round(100 * spike / capacity) if capacity else None,
        }
        for base, plane in zip(g["base_rps"], counts["trapped"], strict=True)
        for duration, line in zip(g["duration_s"], plane, strict=True)
        for spike, k in zip(g["spike_rps"], line, strict=True)
        if 0 < k < n
    ]
    peaks = counts.get("median_peak")
    if peaks:
        spikes, durations, bases = g["spike_rps"], g["duration_s"], g["base_rps"]
        for c in cells:
            b, d = bases.index(c["base"]), durations.index(c["duration"])
            c["median_peak"] = peaks[b][d][spikes.index(c["spike"])]
    return sorted(cells, key=lambda c: (abs(2 * c["trapped"] - n), c["spike"], c["duration"]))


def _at_capacity(cell: Mapping[str, Any]) -> bool:
    return 98 <= cell["load"] <= 102


def ten_seeds_words(result: Mapping[str, Any]) -> list[str]:
    """What the 10 seeds showed, from this run's counts; nothing without them."""
    counts = (result.get("tables") or {}).get("seed_counts")
    if not counts:
        return []
    n, noisy = len(counts["seeds"]), noisy_cells(result)
    several_bases = len(result["tables"]["grid"]["base_rps"]) > 1
    if not noisy:
        return [
            gettext(
                "Over %(n)s seeds every cell came out the same each time: on this grid, "
                "chance decides nothing."
            )
            % {"n": num(n)}
        ]
    lines = [
        gettext(
            "Over %(n)s seeds, %(cells)s cells were trapped in some seeds and not in others: "
            "there one seed's map shows luck, not a rule."
        )
        % {"n": num(n), "cells": num(len(noisy))}
    ]
    # The three closest to an even split, and a spike at the capacity itself if any.
    at_capacity = [c for c in noisy if _at_capacity(c)][:1]
    shown = noisy[:3] + [c for c in at_capacity if c not in noisy[:3]]
    for cell in shown:
        words = {
            "spike": num(cell["spike"]),
            "s": num(cell["duration"]),
            "k": num(cell["trapped"]),
            "n": num(n),
            "load": num(cell["load"]),
            "base": num(cell["base"]),
        }
        if several_bases:
            line = gettext(
                "%(spike)s/s for %(s)s s on a normal load of %(base)s/s: trapped in %(k)s of "
                "%(n)s seeds (the spike is %(load)s%% of capacity)."
            )
        else:
            line = gettext(
                "%(spike)s/s for %(s)s s: trapped in %(k)s of %(n)s seeds (the spike is "
                "%(load)s%% of capacity)."
            )
        lines.append(line % words)
    for cell in at_capacity:
        if "median_peak" not in cell:
            continue  # a result saved before the peaks were kept: nothing true to add
        lines.append(
            gettext(
                "At %(load)s%% of capacity the spike's average rate only matches the workers, "
                "yet random gaps between requests still build a queue: over these %(n)s seeds "
                "its peak had a median of %(peak)s requests, against %(timeout)s for one "
                "timeout's worth. Whether a seed gets there is chance."
            )
            % {
                "load": num(cell["load"]),
                "n": num(n),
                "peak": num(cell["median_peak"]),
                "timeout": num(result["summary"]["timeout_backlog"]),
            }
        )
    return lines


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
    elif small < s["timeout_backlog"]:
        lines.append(
            gettext(
                "Hidden capacity: the smallest spike that trapped it left %(small)s requests more "
                "than the workers could do, less than one timeout's worth (%(timeout)s): random "
                "gaps between requests piled up the rest; the largest it recovered from left "
                "%(large)s."
            )
            % {"small": num(small), "large": num(large), "timeout": num(s["timeout_backlog"])}
        )
    else:
        lines.append(
            gettext(
                "Hidden capacity: the smallest spike that trapped it left %(small)s requests more "
                "than the workers could do; the largest it recovered from left %(large)s. Past "
                "about one timeout's worth of queue, the retries keep the queue full."
            )
            % {"small": num(small), "large": num(large)}
        )
    # What the grid made of a range the student set (one value, or an end not used) first.
    return [*grid_notes(p), *lines, *ten_seeds_words(result)]


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


def cost(params: Mapping[str, Any]) -> capstone_cost.Cost:
    """The bound on a run's worker time, checked against the budget before it is queued:
    one map's, or ten times it with the 10 seeds (over the budget, the form refuses and
    marks the fields that set it, the box among them)."""
    one = capstone_cost.phase_map_cost(params)
    if not params.get(TEN_SEEDS.name):
        return one
    return capstone_cost.Cost(one.seconds * SEEDS, (*one.drivers, TEN_SEEDS.name))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    uses_seed=USES_SEED,
    default_seed=DEFAULT_SEED,
    cost=cost,
    time_limit_s=TIME_LIMIT_S,
)
