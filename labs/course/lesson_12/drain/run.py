"""The Lesson 12 drain lab: a burst of jobs through fixed or backlog-scaled workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim import drain, drain_summary, fixed, per_backlog
from labs.text import gettext, gettext_noop, ngettext, num

LESSON_ARRIVALS = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]

WORKLOAD_PARAMS = (
    Param(
        "arrivals",
        gettext_noop("Jobs arriving each second"),
        "int_list",
        LESSON_ARRIVALS,
        gettext_noop("Comma-separated: how many jobs arrive in second 0, 1, 2, …"),
        min=0,
        max=100_000,
        max_items=300,
        group=gettext_noop("Workload"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "per_worker",
        gettext_noop("Jobs one worker finishes per second"),
        "int",
        100,
        gettext_noop(
            "Every running worker completes this many jobs a second (if there are that many)."
        ),
        min=1,
        max=100_000,
        group=gettext_noop("Workload"),
        unit=gettext_noop("jobs/s"),
    ),
)

PARAMS = (
    *WORKLOAD_PARAMS,
    Param(
        "rule",
        gettext_noop("Scaling rule"),
        "choice",
        "backlog",
        gettext_noop(
            "Fixed: always the same number of workers. Backlog: one worker per K jobs waiting."
        ),
        choices=(
            ("fixed", gettext_noop("Fixed number of workers")),
            ("backlog", gettext_noop("Scale on the backlog")),
        ),
        group=gettext_noop("Workers"),
    ),
    Param(
        "fixed_workers",
        gettext_noop("Workers (fixed rule)"),
        "int",
        3,
        gettext_noop("How many workers run every second under the fixed rule."),
        min=0,
        max=1_000,
        group=gettext_noop("Workers"),
    ),
    Param(
        "per_waiting",
        gettext_noop("One worker per K waiting (backlog rule)"),
        "int",
        100,
        gettext_noop("The backlog rule runs ceil(backlog / K) workers."),
        min=1,
        max=100_000,
        group=gettext_noop("Workers"),
        unit=gettext_noop("jobs"),
    ),
    Param(
        "min_workers",
        gettext_noop("Fewest workers (backlog rule)"),
        "int",
        1,
        gettext_noop("Never fewer than this, even with an empty queue."),
        min=0,
        max=1_000,
        group=gettext_noop("Workers"),
    ),
    Param(
        "max_workers",
        gettext_noop("Most workers (backlog rule)"),
        "int",
        10,
        gettext_noop("Never more than this, however long the queue."),
        min=1,
        max=1_000,
        group=gettext_noop("Workers"),
    ),
)


FIGURES = (
    Figure("peak_backlog", gettext_noop("Peak backlog"), "int", gettext_noop("jobs")),
    Figure("most_workers", gettext_noop("Most workers at once"), "int", gettext_noop("workers")),
    Figure(
        "left_at_end", gettext_noop("Jobs still waiting at the end"), "int", gettext_noop("jobs")
    ),
    Figure("seconds", gettext_noop("Seconds simulated"), "int", gettext_noop("s")),
    Figure("total_arrived", gettext_noop("Jobs arrived"), "int", gettext_noop("jobs")),
    Figure("total_done", gettext_noop("Jobs done"), "int", gettext_noop("jobs")),
    Figure(
        "worker_seconds", gettext_noop("Worker-seconds used"), "int", gettext_noop("worker-seconds")
    ),
    Figure(
        "cleared_at_s",
        gettext_noop("Second the queue was empty again"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """Cross-field rules a single field cannot check on its own."""
    if params["min_workers"] > params["max_workers"]:
        return {"min_workers": gettext("Fewest workers must not be more than most workers.")}
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


def left_words(left: int, seconds: float) -> str:
    """What was left at the end: "No jobs were left waiting", never "0 jobs were still"."""
    if not left:
        return gettext("No jobs were left waiting after %(t)s s.") % {"t": seconds}
    return ngettext(
        "%(n)s job was still waiting after %(t)s s.",
        "%(n)s jobs were still waiting after %(t)s s.",
        left,
    ) % {"n": num(left), "t": seconds}


def headline(result: Mapping[str, Any]) -> list[str]:
    """The three figures the lesson prints, then when the queue emptied."""
    s = result["summary"]
    lines = [
        gettext("The backlog peaked at %(n)s jobs.") % {"n": num(s["peak_backlog"])},
        gettext("At most %(n)s workers ran at once (%(ws)s worker-seconds in all).")
        % {"n": s["most_workers"], "ws": num(s["worker_seconds"])},
        left_words(s["left_at_end"], s["seconds"]),
    ]
    if s["peak_backlog"] and s["cleared_at_s"] is not None:
        lines.append(
            gettext("The queue was empty again at second %(t)s.") % {"t": s["cleared_at_s"]}
        )
    elif s["peak_backlog"]:
        lines.append(gettext("The queue never emptied within the run: add workers or seconds."))
    return lines


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
