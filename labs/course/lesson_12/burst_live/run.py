"""Lesson 12 on real queues: the lesson's burst, fixed workers against workers scaled on backlog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments import LESSON_12_ARRIVALS, burst
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    SETUP_S,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim import drain, fixed, per_backlog
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, num, phrase

EXTRA_SECONDS = 2  # quiet lesson seconds after the arrivals, so the drain shows
MAX_WALL_S = 40.0  # the whole run, start-up and clean-up included (its `cost`)
MAX_MESSAGES = 10_000  # per queue; both queues get them all
MAX_WORKER_RATE_PER_S = 2000.0  # jobs a worker thread does per second of real time
MAX_TOTAL_RATE_PER_S = 10_000.0  # all workers of both pools: what one Redis takes with room
POLICIES = ("fixed", "scaled")

# How the catalogue runs this lab (declared in `RUNNER` below).

PARAMS = (
    Param(
        "arrivals",
        gettext_noop("Jobs arriving each lesson second"),
        "int_list",
        list(LESSON_12_ARRIVALS),
        gettext_noop(
            "Comma-separated: the lesson's certificate burst by default. Both queues get the same."
        ),
        min=0,
        max=2000,
        max_items=30,
        group=gettext_noop("Workload"),
        unit=gettext_noop("jobs"),
        limit=phrase(gettext_noop("At most %(most)s jobs in all."), most=num(MAX_MESSAGES)),
    ),
    Param(
        "per_worker",
        gettext_noop("Jobs one worker finishes per lesson second"),
        "int",
        100,
        gettext_noop("As in the lesson: every worker does this many jobs a (lesson) second."),
        min=1,
        max=1000,
        group=gettext_noop("Workload"),
        unit=gettext_noop("jobs"),
        limit=phrase(
            gettext_noop(
                "Together with the lesson second: this ÷ the lesson second may be at most "
                "%(most)s jobs/s per worker."
            ),
            most=num(MAX_WORKER_RATE_PER_S),
        ),
    ),
    Param(
        "lesson_second_s",
        gettext_noop("One lesson second lasts"),
        "float",
        0.2,
        gettext_noop(
            "A lesson second is one second of the lesson's burst, played faster here; it "
            "really lasts this long."
        ),
        min=0.1,
        max=2.0,
        group=gettext_noop("Workload"),
        unit=gettext_noop("s"),
        limit=phrase(
            gettext_noop(
                "Together with the arrivals: (seconds of arrivals + %(extra)s to drain) × this "
                "may be at most %(most)s s."
            ),
            extra=EXTRA_SECONDS,
            most=num(MAX_WALL_S),
        ),
    ),
    Param(
        "fixed_workers",
        gettext_noop("Workers (fixed pool)"),
        "int",
        3,
        gettext_noop("The fixed pool always runs this many workers."),
        min=0,
        max=16,
        group=gettext_noop("Workers"),
    ),
    Param(
        "per_waiting",
        gettext_noop("One worker per … jobs waiting"),
        "int",
        100,
        gettext_noop(
            "The scaled pool's controller reads the real queue's backlog at the start of every "
            "lesson second and runs one worker per this many jobs waiting."
        ),
        min=1,
        max=10_000,
        group=gettext_noop("Workers"),
        unit=gettext_noop("jobs"),
    ),
    Param(
        "min_workers",
        gettext_noop("Fewest workers (scaled)"),
        "int",
        1,
        gettext_noop("The controller's floor."),
        min=0,
        max=16,
        group=gettext_noop("Workers"),
    ),
    Param(
        "max_workers",
        gettext_noop("Most workers (scaled)"),
        "int",
        10,
        gettext_noop("The controller's ceiling."),
        min=1,
        max=16,
        group=gettext_noop("Workers"),
        limit=phrase(
            gettext_noop(
                "Together: (fixed workers + most workers) × jobs a worker does a second may be "
                "at most %(most)s jobs/s on the shared Redis."
            ),
            most=num(MAX_TOTAL_RATE_PER_S),
        ),
    ),
)

LIVE_KEYS = ("t_s", "second") + tuple(
    f"{m}_{p}"
    for p in POLICIES
    for m in ("backlog", "workers", "done", "oldest_age_lesson_s", "in_flight")
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    arrivals, lss = params["arrivals"], params["lesson_second_s"]
    if not arrivals:
        errors["arrivals"] = gettext("Give at least one second of arrivals.")
    if sum(arrivals) > MAX_MESSAGES:
        errors["arrivals"] = gettext("At most %(most)s jobs in all, got %(n)s.") % {
            "most": num(MAX_MESSAGES),
            "n": num(sum(arrivals)),
        }
    wall_s = cost(params).seconds
    if wall_s > MAX_WALL_S:
        errors["lesson_second_s"] = gettext(
            "%(n)s seconds of arrivals and %(extra)s to drain, at %(lss)s s each, plus "
            "%(setup)s s to start and clean up, take %(wall)s s; keep it at most %(max)s s."
        ) % {
            "n": len(arrivals),
            "extra": EXTRA_SECONDS,
            "lss": f"{lss:g}",
            "setup": f"{SETUP_S:g}",
            "wall": num(round(wall_s, 1)),
            "max": f"{MAX_WALL_S:g}",
        }
    worker_rate = params["per_worker"] / lss
    if worker_rate > MAX_WORKER_RATE_PER_S:
        errors["per_worker"] = gettext(
            "%(n)s jobs per %(lss)s s is %(rate)s jobs/s per worker; a worker here does at most "
            "%(most)s. Lengthen the lesson second or lower the rate."
        ) % {
            "n": params["per_worker"],
            "lss": f"{lss:g}",
            "rate": f"{worker_rate:,.0f}",
            "most": f"{MAX_WORKER_RATE_PER_S:,.0f}",
        }
    elif (total := (params["fixed_workers"] + params["max_workers"]) * worker_rate) > (
        MAX_TOTAL_RATE_PER_S
    ):
        errors["max_workers"] = gettext(
            "Both pools at full size would do %(rate)s jobs/s; the shared Redis allows "
            "%(most)s. Use fewer workers or a longer lesson second."
        ) % {"rate": f"{total:,.0f}", "most": f"{MAX_TOTAL_RATE_PER_S:,.0f}"}
    if params["min_workers"] > params["max_workers"]:
        errors["min_workers"] = gettext("The floor must not be above the ceiling.")
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the arrivals into both real queues; nothing is random."""
    result = burst(
        params["arrivals"],
        params["per_worker"],
        fixed_workers=params["fixed_workers"],
        per_waiting=params["per_waiting"],
        min_workers=params["min_workers"],
        max_workers=params["max_workers"],
        lesson_second_s=params["lesson_second_s"],
        extra_seconds=EXTRA_SECONDS,
        seed=seed,
        # Sampled every quarter of a lesson second (the library's choice); no DLQ to keep.
        context=experiment_context(progress, LIVE_KEYS, keep=False, sample_interval_s=None),
    )
    s = result["summary"]
    rows = result["tables"]["per_second"]
    return {
        "summary": {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s),
        "series": result["series"],
        "tables": {
            "per_second": table(
                gettext_noop(
                    "Second by second: the real queues (the simulation of the same input)"
                ),
                [
                    gettext_noop("second"),
                    gettext_noop("arrived"),
                    gettext_noop("fixed: waiting"),
                    gettext_noop("scaled: workers"),
                    gettext_noop("scaled: waiting"),
                ],
                [
                    [
                        r["second"],
                        r["arrived"],
                        f"{r['backlog_fixed']:,} ({r['sim_backlog_fixed']:,})",
                        f"{r['workers_scaled']} ({r['sim_workers_scaled']})",
                        f"{r['backlog_scaled']:,} ({r['sim_backlog_scaled']:,})",
                    ]
                    for r in rows
                ],
            ),
            "per_second_data": rows,
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        gettext("%(n)s jobs played into two real queues, one lesson second every %(every)s s.")
        % {"n": num(s["messages_per_queue"]), "every": f"{s['lesson_second_s']:g}"},
    ]
    pools = (("fixed", gettext_noop("Fixed pool")), ("scaled", gettext_noop("Scaled on backlog")))
    for p, name in pools:
        left = s[f"left_at_end_{p}"]
        words = {
            "name": gettext(name),
            "peak": num(s[f"peak_backlog_{p}"]),
            "sim_peak": num(s[f"sim_peak_backlog_{p}"]),
            "most": num(s[f"most_workers_{p}"]),
            "sim_most": num(s[f"sim_most_workers_{p}"]),
            "age": num(round(s[f"oldest_age_max_lesson_s_{p}"], 1)),
        }
        if left is None:
            line = gettext(
                "%(name)s: backlog peaked at %(peak)s (simulation %(sim_peak)s), %(most)s "
                "workers at most (simulation %(sim_most)s); the oldest message waited %(age)s "
                "lesson seconds."
            )
        else:
            words |= {"left": num(left), "sim_left": num(s[f"sim_left_at_end_{p}"])}
            line = gettext(
                "%(name)s: backlog peaked at %(peak)s (simulation %(sim_peak)s), %(most)s "
                "workers at most (simulation %(sim_most)s); %(left)s still waiting when the "
                "arrivals ended (simulation %(sim_left)s); the oldest message waited %(age)s "
                "lesson seconds."
            )
        lines.append(line % words)
    return lines


# Each pool's figures, labels written out whole for the catalogue (fixed pool, scaled pool).
POLICY_LABELS = {
    "fixed": (
        gettext_noop("Fixed pool: peak backlog"),
        gettext_noop("Fixed pool: peak backlog, simulated"),
        gettext_noop("Fixed pool: waiting when arrivals end"),
        gettext_noop("Fixed pool: waiting when arrivals end, simulated"),
        gettext_noop("Fixed pool: most workers"),
        gettext_noop("Fixed pool: most workers, simulated"),
        gettext_noop("Fixed pool: oldest message's longest wait"),
        gettext_noop("Fixed pool: jobs done"),
    ),
    "scaled": (
        gettext_noop("Scaled pool: peak backlog"),
        gettext_noop("Scaled pool: peak backlog, simulated"),
        gettext_noop("Scaled pool: waiting when arrivals end"),
        gettext_noop("Scaled pool: waiting when arrivals end, simulated"),
        gettext_noop("Scaled pool: most workers"),
        gettext_noop("Scaled pool: most workers, simulated"),
        gettext_noop("Scaled pool: oldest message's longest wait"),
        gettext_noop("Scaled pool: jobs done"),
    ),
}


def _policy_figures(p: str) -> tuple[Figure, ...]:
    peak, sim_peak, left, sim_left, most, sim_most, oldest, done = POLICY_LABELS[p]
    return (
        Figure(f"peak_backlog_{p}", peak, "int", gettext_noop("jobs")),
        Figure(f"sim_peak_backlog_{p}", sim_peak, "int", gettext_noop("jobs")),
        Figure(f"left_at_end_{p}", left, "int", gettext_noop("jobs"), nullable=True),
        Figure(f"sim_left_at_end_{p}", sim_left, "int"),
        Figure(f"most_workers_{p}", most, "int", gettext_noop("workers")),
        Figure(f"sim_most_workers_{p}", sim_most, "int", gettext_noop("workers")),
        Figure(f"oldest_age_max_lesson_s_{p}", oldest, "float", gettext_noop("lesson s")),
        Figure(f"done_{p}", done, "int", gettext_noop("jobs")),
    )


FIGURES = (
    Figure(
        "messages_per_queue",
        gettext_noop("Jobs played into each queue"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure(
        "lesson_second_s",
        gettext_noop("Wall time of one lesson second"),
        "float",
        gettext_noop("s"),
    ),
    *_policy_figures("fixed"),
    *_policy_figures("scaled"),
    *FOOTER_FIGURES,
)


def simulated(params: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The lesson's model of the same input: backlog and workers at the end of each second."""
    played = list(params["arrivals"]) + [0] * EXTRA_SECONDS
    rules = {
        "fixed": fixed(params["fixed_workers"]),
        "scaled": per_backlog(params["per_waiting"], params["min_workers"], params["max_workers"]),
    }
    out: dict[str, list[Any]] = {"second": [r.second + 1 for r in drain(played, 1, rules["fixed"])]}
    for p, rule in rules.items():
        sim = drain(played, params["per_worker"], rule)
        out[f"backlog_{p}"] = [r.backlog for r in sim]
        out[f"workers_{p}"] = [r.workers for r in sim]
    return out


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: every lesson second of arrivals and of the drain after them."""
    seconds = len(params["arrivals"]) + EXTRA_SECONDS
    return wall_cost(seconds * params["lesson_second_s"], ("arrivals", "lesson_second_s"))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    cost=cost,
)
