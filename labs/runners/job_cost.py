"""Assignment 05, follow-up 2: jobs whose cost varies 100×, and two ways to estimate the drain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from labs.catalogue.figures import Figure, latency_figures
from labs.catalogue.params import params_from_specs
from labs.runners.common import model_errors, table
from labs.runs.progress import Progress
from labs.sim.capstone import LAB_PARAM_SPECS, job_cost
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.job_cost import JobCostParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import num

# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED

LAYOUT = (
    (
        "Workers",
        (
            ("workers", "Workers"),
            ("units_per_s", "Work units one worker does per second"),
        ),
    ),
    (
        "Jobs",
        (
            ("horizon_s", "Simulated time"),
            ("arrival_rps", "Jobs arriving per second"),
            ("cost_ratio", "Work units of an expensive job"),
            ("expensive_share", "Share of expensive jobs, normally"),
        ),
    ),
    (
        "Incident",
        (
            ("incident_start_s", "Expensive mix starts at"),
            ("incident_end_s", "Expensive mix ends at"),
            ("incident_expensive_share", "Share of expensive jobs during it"),
        ),
    ),
)
PARAMS = params_from_specs(LAB_PARAM_SPECS["job_cost"], LAYOUT)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    return model_errors(JobCostParams, params)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Run the incident; estimate the drain by job count and by work units when it ends."""
    result = job_cost(seed=seed, **params)
    result["tables"]["oldest_expensive_table"] = table(
        "The oldest expensive jobs when the incident ended (what recovery waits on)",
        ["job", "work units", "waited", "work ahead of it", "starts in"],
        [
            [
                row["job_id"],
                num(row["cost_units"]),
                f"{num(round(row['age_s'], 1))} s",
                f"{num(round(row['work_ahead_units']))} units",
                f"{num(round(row['starts_in_s'], 1))} s",
            ]
            for row in result["tables"]["oldest_expensive"]
        ],
    )
    progress.update(1, 1)
    return result


def _time(seconds: float | None) -> str:
    return "never" if seconds is None else f"{num(round(seconds))} s"


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    lines = [
        f"At {num(p['incident_end_s'])} s, when the expensive mix ended, "
        f"{num(s['backlog_jobs_at_estimate'])} jobs were waiting, holding "
        f"{num(round(s['backlog_units_at_estimate']))} work units.",
        f"Counting jobs said the queue would empty in {_time(s['count_estimate_s'])}; counting "
        f"work units said {_time(s['work_estimate_s'])}; it really took "
        f"{_time(s['actual_drain_s'])}.",
    ]
    if s["oldest_expensive_job"]:
        lines.append(
            f"The oldest expensive job is {s['oldest_expensive_job']}: it had waited "
            f"{num(round(s['oldest_expensive_age_s'], 1))} s and would start in about "
            f"{num(round(s['oldest_expensive_starts_in_s'], 1))} s."
        )
    else:
        lines.append("No expensive job was waiting when the incident ended.")
    return lines


FIGURES = (
    Figure("normal_mean_cost_units", "Mean cost of a normal job", "float", "units"),
    Figure("capacity_units_per_s", "Capacity", "float", "units/s"),
    Figure("backlog_jobs_at_estimate", "Jobs waiting at the estimate", "int", "jobs"),
    Figure("backlog_units_at_estimate", "Work waiting at the estimate", "float", "units"),
    Figure("count_estimate_s", "Drain estimate by job count", "float", "s", nullable=True),
    Figure("work_estimate_s", "Drain estimate by work units", "float", "s", nullable=True),
    Figure("actual_drain_s", "Actual drain time", "float", "s", nullable=True),
    Figure("count_estimate_ratio", "Count estimate ÷ actual", "float", "", nullable=True),
    Figure("work_estimate_ratio", "Work estimate ÷ actual", "float", "", nullable=True),
    Figure("oldest_expensive_job", "Oldest expensive job", "str", "", nullable=True),
    Figure("oldest_expensive_age_s", "Its age", "float", "s", nullable=True),
    Figure("oldest_expensive_starts_in_s", "It starts in", "float", "s", nullable=True),
    Figure("oldest_expensive_started_after_s", "It started after", "float", "s", nullable=True),
    *latency_figures(
        (
            ("before", _("before the incident")),
            ("during", _("during the incident")),
            ("after", _("after the incident")),
        )
    ),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.job_cost_cost
