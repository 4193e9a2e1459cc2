"""The capstone models' cross-field rules in plain words, next to the field to change.

The models refuse a bad combination with a ValueError written for developers
("trigger_end_s must be >= trigger_start_s (60), got 50"). A student reads these instead,
in their own language; a rule missing here still falls back to the model's own message.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from labs.interface.params import Param
from labs.sim.capstone.cold_cache import MAX_READS_PER_RUN
from labs.sim.capstone.job_cost import MAX_JOBS_PER_RUN
from labs.sim.capstone.phase_map import MAX_GRID_REQUESTS, MAX_RUNS, grid_steps
from labs.sim.capstone.trapped_params import MAX_ATTEMPTS_PER_CALL, MAX_REQUESTS_PER_RUN
from labs.text import gettext, gettext_noop, num, phrase


def trapped_errors(p: Mapping[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    horizon = {"horizon": num(p["horizon_s"])}
    if p["trigger_end_s"] < p["trigger_start_s"]:
        errors["trigger_end_s"] = gettext(
            "The trigger must end at or after it starts (second %(start)s)."
        ) % {"start": num(p["trigger_start_s"])}
    elif p["trigger_end_s"] > p["horizon_s"]:
        errors["trigger_end_s"] = (
            gettext("The trigger must end within the simulated time (%(horizon)s s).") % horizon
        )
    if p["recover_at_s"] > p["horizon_s"]:
        errors["recover_at_s"] = (
            gettext("The controls must start within the simulated time (%(horizon)s s).") % horizon
        )
    if p["workers_lost"] >= p["workers"]:
        errors["workers_lost"] = gettext(
            "At least one worker must stay: lose fewer than %(workers)s."
        ) % {"workers": num(p["workers"])}
    if p["backoff_cap_ms"] < p["backoff_base_ms"]:
        errors["backoff_cap_ms"] = gettext(
            "The longest backoff must be at least the first one (%(base)s ms)."
        ) % {"base": num(p["backoff_base_ms"])}
    attempts = p["max_attempts"] ** p["retry_layers"]
    if attempts > MAX_ATTEMPTS_PER_CALL:
        errors["retry_layers"] = gettext(
            "Attempts multiply across the layers: %(attempts)s per layer over %(layers)s "
            "layers is %(total)s per call, more than %(most)s. Use fewer attempts or layers."
        ) % {
            "attempts": p["max_attempts"],
            "layers": p["retry_layers"],
            "total": num(attempts),
            "most": MAX_ATTEMPTS_PER_CALL,
        }
    if p["drop_payments"] and p["reconcile_payments"]:
        errors["drop_payments"] = gettext(
            "Choose one: throw expired payments away, or reconcile them. Not both."
        )
    trigger_s = max(0, p["trigger_end_s"] - p["trigger_start_s"])
    expected = p["base_rps"] * (p["horizon_s"] - trigger_s) + p["spike_rps"] * trigger_s
    if expected > MAX_REQUESTS_PER_RUN and "horizon_s" not in errors:
        errors["horizon_s"] = gettext(
            "This run would see about %(n)s new requests, more than %(most)s: shorten the "
            "simulated time or lower the rates."
        ) % {"n": num(round(expected)), "most": num(MAX_REQUESTS_PER_RUN)}
    return errors


def job_cost_errors(p: Mapping[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if p["incident_end_s"] < p["incident_start_s"]:
        errors["incident_end_s"] = gettext(
            "The expensive mix must end at or after it starts (second %(start)s)."
        ) % {"start": num(p["incident_start_s"])}
    elif p["incident_end_s"] > p["horizon_s"]:
        errors["incident_end_s"] = gettext(
            "The expensive mix must end within the simulated time (%(horizon)s s)."
        ) % {"horizon": num(p["horizon_s"])}
    jobs = p["arrival_rps"] * p["horizon_s"]
    if jobs > MAX_JOBS_PER_RUN:
        errors["arrival_rps"] = gettext(
            "This run would see about %(n)s jobs, more than %(most)s: lower the jobs per second "
            "or the simulated time."
        ) % {"n": num(round(jobs)), "most": num(MAX_JOBS_PER_RUN)}
    return errors


def cold_cache_errors(p: Mapping[str, Any]) -> dict[str, str]:
    reads = p["offered_rps"] * p["horizon_s"]
    if reads > MAX_READS_PER_RUN:
        return {
            "offered_rps": gettext(
                "This run would see about %(n)s reads, more than %(most)s: lower the reads per "
                "second or the simulated time."
            )
            % {"n": num(round(reads)), "most": num(MAX_READS_PER_RUN)}
        }
    return {}


@dataclass(frozen=True)
class GridRange:
    """One range of the phase map's grid: its three fields, and what is said about it."""

    low: str
    high: str
    steps: str
    reversed: str  # two steps or more, the high end below the low: %(low)s
    high_unused: str  # one step, so the high end is not tried: %(low)s, %(high)s
    one_value: str  # two steps or more between equal ends, so one value: %(low)s, %(steps)s


RANGES = (
    GridRange(
        "spike_min_rps",
        "spike_max_rps",
        "spike_steps",
        gettext_noop("The largest spike rate must be at least the smallest (%(low)s)."),
        gettext_noop(
            "With one spike size to try, every run has the smallest spike, %(low)s "
            "requests/s; the largest (%(high)s) is used only with 2 sizes or more."
        ),
        gettext_noop(
            "The smallest and largest spikes are both %(low)s requests/s, so the map tries "
            "that one size, not %(steps)s."
        ),
    ),
    GridRange(
        "duration_min_s",
        "duration_max_s",
        "duration_steps",
        gettext_noop("The longest spike must be at least the shortest (%(low)s s)."),
        gettext_noop(
            "With one duration to try, every spike lasts the shortest time, %(low)s s; the "
            "longest (%(high)s s) is used only with 2 durations or more."
        ),
        gettext_noop(
            "The shortest and longest spikes both last %(low)s s, so the map tries that one "
            "duration, not %(steps)s."
        ),
    ),
    GridRange(
        "base_min_rps",
        "base_max_rps",
        "base_steps",
        gettext_noop("The highest normal load must be at least the lowest (%(low)s)."),
        gettext_noop(
            "With one normal load to try, every run has the lowest, %(low)s requests/s; the "
            "highest (%(high)s) is used only with 2 normal loads or more."
        ),
        gettext_noop(
            "The lowest and highest normal loads are both %(low)s requests/s, so the map "
            "tries that one load, not %(steps)s."
        ),
    ),
)


def grid_notes(p: Mapping[str, Any]) -> list[str]:
    """What the map made of a range that does not span its steps: a high end one step
    leaves unused, or equal ends that give one value however many steps were asked for.
    The boxes keep what the student typed; these sentences say what was tried."""
    notes = []
    for r in RANGES:
        low, high, steps = p[r.low], p[r.high], p[r.steps]
        if steps == 1 and high != low:
            notes.append(gettext(r.high_unused) % {"low": num(low), "high": num(high)})
        elif steps > 1 and high == low:
            notes.append(gettext(r.one_value) % {"low": num(low), "steps": num(steps)})
    return notes


def grid_requests(p: Mapping[str, Any]) -> float:
    """New requests over every run of the grid (the model's `expected_requests`)."""
    return sum(
        base * (p["map_horizon_s"] - duration) + spike * duration
        for base in grid_steps(p["base_min_rps"], p["base_max_rps"], p["base_steps"])
        for duration in grid_steps(p["duration_min_s"], p["duration_max_s"], p["duration_steps"])
        for spike in grid_steps(p["spike_min_rps"], p["spike_max_rps"], p["spike_steps"])
    )


def grid_top(p: Mapping[str, Any], low: str, high: str, steps: str) -> float:
    """The highest value a range of the grid tries: its high end, or with one step its low
    end alone (the high end is then not used, and its order does not matter)."""
    return max(grid_steps(p[low], p[high], p[steps]))


def phase_map_errors(p: Mapping[str, Any]) -> dict[str, str]:
    """The grid's rules: ranges the right way round, a grid small enough, spikes that fit.

    A range's order matters only when it has two steps or more: with one, the low end is
    tried alone (a first move of the lowest normal load above the highest is a map at it).
    """
    errors: dict[str, str] = {}
    for r in RANGES:
        if p[r.steps] > 1 and p[r.high] < p[r.low]:
            errors[r.high] = gettext(r.reversed) % {"low": num(p[r.low])}
    runs = math.prod(len(grid_steps(p[r.low], p[r.high], p[r.steps])) for r in RANGES)
    if runs > MAX_RUNS:
        errors["spike_steps"] = gettext(
            "Spike rates × durations × normal loads to try is %(runs)s runs, more than "
            "%(most)s: try fewer steps."
        ) % {"runs": num(runs), "most": num(MAX_RUNS)}
    end = p["map_trigger_start_s"] + grid_top(
        p, "duration_min_s", "duration_max_s", "duration_steps"
    )
    if end > p["map_horizon_s"]:
        errors["duration_max_s"] = gettext(
            "The longest spike would end at %(end)s s, after each run ends (%(horizon)s s): "
            "shorten it, start it earlier or simulate longer."
        ) % {"end": num(end), "horizon": num(p["map_horizon_s"])}
    if not errors and (requests := grid_requests(p)) > MAX_GRID_REQUESTS:
        errors["map_horizon_s"] = gettext(
            "The whole grid would see about %(n)s new requests, more than %(most)s: try fewer "
            "steps or a shorter simulated time per run."
        ) % {"n": num(round(requests)), "most": num(MAX_GRID_REQUESTS)}
    return errors


# The limits above that several fields share, said in the help of the field the error names
# (`Param.limit`), so a student meets them before pressing Run.
LIMITS: dict[str, dict[str, Any]] = {
    "trapped_service": {
        "horizon_s": phrase(
            gettext_noop(
                "Together with the rates: the run may see at most %(most)s new requests "
                "(normal rate × time outside the trigger + spike rate × trigger)."
            ),
            most=num(MAX_REQUESTS_PER_RUN),
        ),
        "retry_layers": phrase(
            gettext_noop(
                "Together with the attempts: attempts per layer multiplied over the layers may "
                "be at most %(most)s per call."
            ),
            most=MAX_ATTEMPTS_PER_CALL,
        ),
    },
    "job_cost": {
        "arrival_rps": phrase(
            gettext_noop(
                "Together with the simulated time: jobs per second × seconds may be at most "
                "%(most)s jobs."
            ),
            most=num(MAX_JOBS_PER_RUN),
        ),
    },
    "phase_map": {
        "spike_steps": phrase(
            gettext_noop(
                "Together: spike rates × durations × normal loads may be at most %(most)s runs."
            ),
            most=num(MAX_RUNS),
        ),
        "map_horizon_s": phrase(
            gettext_noop(
                "Together with the grid: all its runs may see at most %(most)s new requests."
            ),
            most=num(MAX_GRID_REQUESTS),
        ),
    },
    "cold_cache": {
        "offered_rps": phrase(
            gettext_noop(
                "Together with the simulated time: reads per second × seconds may be at most "
                "%(most)s reads."
            ),
            most=num(MAX_READS_PER_RUN),
        ),
    },
}


def with_limits(params: Sequence[Param], model: str) -> tuple[Param, ...]:
    """`params` with the shared limits of `model` in their help."""
    limits = LIMITS[model]
    return tuple(replace(p, limit=limits[p.name]) if p.name in limits else p for p in params)
