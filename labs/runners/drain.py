"""The Lesson 12 drain lab: a burst of jobs through fixed or backlog-scaled workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param
from labs.runs.progress import Progress
from labs.sim import drain, drain_summary, fixed, per_backlog

LESSON_ARRIVALS = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]

WORKLOAD_PARAMS = (
    Param(
        "arrivals",
        "Jobs arriving each second",
        "int_list",
        LESSON_ARRIVALS,
        "Comma-separated: how many jobs arrive in second 0, 1, 2, …",
        min=0,
        max=100_000,
        max_items=300,
        group="Workload",
        unit="jobs/s",
    ),
    Param(
        "per_worker",
        "Jobs one worker finishes per second",
        "int",
        100,
        "Every running worker completes this many jobs a second (if there are that many).",
        min=1,
        max=100_000,
        group="Workload",
        unit="jobs/s",
    ),
)

PARAMS = (
    *WORKLOAD_PARAMS,
    Param(
        "rule",
        "Scaling rule",
        "choice",
        "backlog",
        "Fixed: always the same number of workers. Backlog: one worker per K jobs waiting.",
        choices=(("fixed", "Fixed number of workers"), ("backlog", "Scale on the backlog")),
        group="Workers",
    ),
    Param(
        "fixed_workers",
        "Workers (fixed rule)",
        "int",
        3,
        "How many workers run every second under the fixed rule.",
        min=0,
        max=1_000,
        group="Workers",
    ),
    Param(
        "per_waiting",
        "One worker per K waiting (backlog rule)",
        "int",
        100,
        "The backlog rule runs ceil(backlog / K) workers.",
        min=1,
        max=100_000,
        group="Workers",
        unit="jobs",
    ),
    Param(
        "min_workers",
        "Fewest workers (backlog rule)",
        "int",
        1,
        "Never fewer than this, even with an empty queue.",
        min=0,
        max=1_000,
        group="Workers",
    ),
    Param(
        "max_workers",
        "Most workers (backlog rule)",
        "int",
        10,
        "Never more than this, however long the queue.",
        min=1,
        max=1_000,
        group="Workers",
    ),
)


FIGURES = (
    Figure("peak_backlog", "Peak backlog", "int", "jobs"),
    Figure("most_workers", "Most workers at once", "int", "workers"),
    Figure("left_at_end", "Jobs still waiting at the end", "int", "jobs"),
    Figure("seconds", "Seconds simulated", "int", "s"),
    Figure("total_arrived", "Jobs arrived", "int", "jobs"),
    Figure("total_done", "Jobs done", "int", "jobs"),
    Figure("worker_seconds", "Worker-seconds used", "int", "worker-s"),
    Figure("cleared_at_s", "Second the queue was empty again", "int", "s", nullable=True),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """Cross-field rules a single field cannot check on its own."""
    if params["min_workers"] > params["max_workers"]:
        return {"min_workers": "Fewest workers must not be more than most workers."}
    return {}


def rule_for(params: Mapping[str, Any]):
    if params["rule"] == "fixed":
        return fixed(params["fixed_workers"])
    return per_backlog(params["per_waiting"], params["min_workers"], params["max_workers"])


def rule_label(params: Mapping[str, Any]) -> str:
    if params["rule"] == "fixed":
        return f"fixed {params['fixed_workers']}"
    return (
        f"1 per {params['per_waiting']} waiting, "
        f"min {params['min_workers']}, max {params['max_workers']}"
    )


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the arrivals through the chosen rule; the model has no randomness."""
    rows = drain(params["arrivals"], params["per_worker"], rule_for(params))
    summary: dict[str, Any] = dict(drain_summary(rows))
    summary["seconds"] = len(rows)
    summary["total_arrived"] = sum(r.arrived for r in rows)
    summary["total_done"] = sum(r.done for r in rows)
    summary["worker_seconds"] = sum(r.workers for r in rows)
    peak_at = max(range(len(rows)), key=lambda i: rows[i].backlog) if rows else 0
    cleared = next((r.second for r in rows[peak_at:] if r.backlog == 0), None)
    summary["cleared_at_s"] = cleared if summary["peak_backlog"] else 0
    progress.update(len(rows), len(rows))
    return {
        "summary": summary,
        "series": {
            "second": [r.second for r in rows],
            "arrived": [r.arrived for r in rows],
            "workers": [r.workers for r in rows],
            "done": [r.done for r in rows],
            "backlog": [r.backlog for r in rows],
        },
        "tables": {"rule": rule_label(params)},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    """The three figures the lesson prints, then when the queue emptied."""
    s = result["summary"]
    lines = [
        f"The backlog peaked at {s['peak_backlog']:,} jobs.",
        f"At most {s['most_workers']} workers ran at once "
        f"({s['worker_seconds']:,} worker-seconds in all).",
        f"{s['left_at_end']:,} jobs were still waiting after {s['seconds']} s.",
    ]
    if s["peak_backlog"] and s["cleared_at_s"] is not None:
        lines.append(f"The queue was empty again at second {s['cleared_at_s']}.")
    elif s["peak_backlog"]:
        lines.append("The queue never emptied within the run: add workers or seconds.")
    return lines
