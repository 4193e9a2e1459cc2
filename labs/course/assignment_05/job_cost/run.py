"""Assignment 05, follow-up 2: jobs whose cost varies 100×, and two ways to estimate the drain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure, latency_figures
from labs.interface.lab_runner import LabRunner
from labs.interface.params import params_from_specs
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.capstone_rules import job_cost_errors, with_limits
from labs.runners.common import model_errors, table
from labs.sim.capstone import LAB_PARAM_SPECS, job_cost
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.job_cost import JobCostParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import gettext, gettext_noop, num, phrase

# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread("actual_drain_s", "second", "backlog_jobs", y_label=gettext_noop("jobs waiting"))
DEFAULT_SEED = CAPSTONE_SEED

LAYOUT = (
    (
        gettext_noop("Workers"),
        (
            ("workers", gettext_noop("Workers")),
            ("units_per_s", gettext_noop("Work units one worker does per second")),
        ),
    ),
    (
        gettext_noop("Jobs"),
        (
            ("horizon_s", gettext_noop("Simulated time")),
            ("arrival_rps", gettext_noop("Jobs arriving per second")),
            ("cost_ratio", gettext_noop("Work units of an expensive job")),
            ("expensive_share", gettext_noop("Share of expensive jobs, normally")),
        ),
    ),
    (
        gettext_noop("Incident"),
        (
            ("incident_start_s", gettext_noop("Expensive mix starts at")),
            ("incident_end_s", gettext_noop("Expensive mix ends at")),
            ("incident_expensive_share", gettext_noop("Share of expensive jobs during it")),
        ),
    ),
)
PARAMS = with_limits(params_from_specs(LAB_PARAM_SPECS["job_cost"], LAYOUT), "job_cost")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    return job_cost_errors(params) or model_errors(JobCostParams, params)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Run the incident; estimate the drain by job count and by work units when it ends."""
    result = job_cost(seed=seed, **params)
    result["tables"]["oldest_expensive_table"] = table(
        gettext_noop("The oldest expensive jobs when the incident ended (what recovery waits on)"),
        [
            gettext_noop("job"),
            gettext_noop("work units"),
            gettext_noop("waited"),
            gettext_noop("work ahead of it"),
            gettext_noop("starts in"),
        ],
        [
            [
                row["job_id"],
                num(row["cost_units"]),
                f"{num(round(row['age_s'], 1))} s",
                phrase(gettext_noop("%(n)s units"), n=num(round(row["work_ahead_units"]))),
                f"{num(round(row['starts_in_s'], 1))} s",
            ]
            for row in result["tables"]["oldest_expensive"]
        ],
    )
    progress.update(1, 1)
    return result


def _time(seconds: float | None) -> str:
    return gettext("never") if seconds is None else f"{num(round(seconds))} s"


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    lines = [
        gettext(
            "At %(t)s s, when the expensive mix ended, %(jobs)s jobs were waiting, holding "
            "%(units)s work units."
        )
        % {
            "t": num(p["incident_end_s"]),
            "jobs": num(s["backlog_jobs_at_estimate"]),
            "units": num(round(s["backlog_units_at_estimate"])),
        },
        gettext(
            "Counting jobs said the queue would empty in %(count)s; counting work units said "
            "%(work)s; it really took %(actual)s."
        )
        % {
            "count": _time(s["count_estimate_s"]),
            "work": _time(s["work_estimate_s"]),
            "actual": _time(s["actual_drain_s"]),
        },
    ]
    if s["oldest_expensive_job"]:
        lines.append(
            gettext(
                "The oldest expensive job is %(job)s: it had waited %(age)s s and would start in "
                "about %(start)s s."
            )
            % {
                "job": s["oldest_expensive_job"],
                "age": num(round(s["oldest_expensive_age_s"], 1)),
                "start": num(round(s["oldest_expensive_starts_in_s"], 1)),
            }
        )
    else:
        lines.append(gettext("No expensive job was waiting when the incident ended."))
    return lines


FIGURES = (
    Figure(
        "normal_mean_cost_units",
        gettext_noop("Mean cost of a normal job"),
        "float",
        gettext_noop("units"),
    ),
    Figure("capacity_units_per_s", gettext_noop("Capacity"), "float", gettext_noop("units/s")),
    Figure(
        "backlog_jobs_at_estimate",
        gettext_noop("Jobs waiting at the estimate"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure(
        "backlog_units_at_estimate",
        gettext_noop("Work waiting at the estimate"),
        "float",
        gettext_noop("units"),
    ),
    Figure(
        "count_estimate_s",
        gettext_noop("Drain estimate by job count"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "work_estimate_s",
        gettext_noop("Drain estimate by work units"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "actual_drain_s",
        gettext_noop("Actual drain time"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "count_estimate_ratio", gettext_noop("Count estimate ÷ actual"), "float", "", nullable=True
    ),
    Figure(
        "work_estimate_ratio", gettext_noop("Work estimate ÷ actual"), "float", "", nullable=True
    ),
    Figure("oldest_expensive_job", gettext_noop("Oldest expensive job"), "str", "", nullable=True),
    Figure(
        "oldest_expensive_age_s", gettext_noop("Its age"), "float", gettext_noop("s"), nullable=True
    ),
    Figure(
        "oldest_expensive_starts_in_s",
        gettext_noop("It starts in"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "oldest_expensive_started_after_s",
        gettext_noop("It started after"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    *latency_figures(
        (
            ("before", gettext_noop("before the incident")),
            ("during", gettext_noop("during the incident")),
            ("after", gettext_noop("after the incident")),
        )
    ),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.job_cost_cost


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
    spread=SPREAD,
)
