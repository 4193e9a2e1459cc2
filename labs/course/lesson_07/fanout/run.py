"""Lesson 07's fan-out calculator: how long queued jobs take for each workers × rate."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import fanout_time_s
from labs.text import gettext, gettext_noop, num, phrase

LESSON_JOBS = 5_000_000  # one urgent SMS to every parent
LESSON_WORKERS = [10, 50, 100, 200]
LESSON_RATES = [50.0, 25.0, 5.0]  # SMS a second per worker: normal, slower, a slow provider

PARAMS = (
    Param(
        "jobs",
        gettext_noop("Jobs to do"),
        "int",
        LESSON_JOBS,
        gettext_noop("How many jobs wait in the queue, e.g. one SMS per parent."),
        min=1,
        max=1_000_000_000,
        group=gettext_noop("Work"),
        unit=gettext_noop("jobs"),
    ),
    Param(
        "workers",
        gettext_noop("Worker counts to compare"),
        "int_list",
        LESSON_WORKERS,
        gettext_noop("Comma-separated: each count becomes one group of bars."),
        min=1,
        max=100_000,
        max_items=8,
        group=gettext_noop("Workers"),
    ),
    Param(
        "rates",
        gettext_noop("Jobs one worker finishes per second"),
        "float_list",
        LESSON_RATES,
        gettext_noop("Comma-separated: each rate is compared with every worker count."),
        min=0.01,
        max=100_000,
        max_items=5,
        group=gettext_noop("Workers"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "deadline_min",
        gettext_noop("Deadline"),
        "float",
        60.0,
        gettext_noop("The lab also works out how many workers finish the jobs within this time."),
        min=0.1,
        max=100_000,
        group=gettext_noop("Deadline"),
        unit=gettext_noop("min"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """Each compared value once, so no two bars say the same thing."""
    errors = {}
    once = {
        "workers": gettext_noop("Give each worker count only once."),
        "rates": gettext_noop("Give each rate only once."),
    }
    for name, message in once.items():
        values = params[name]
        if len(set(values)) != len(values):
            errors[name] = gettext(message)
    return errors


def workers_for_deadline(jobs: int, rate_per_s: float, deadline_min: float) -> int:
    """The fewest workers that finish `jobs` within the deadline at this rate."""
    # Rounded first so 5,000,000 / 180,000 = 27.78 does not become 28.000000001 workers.
    return max(1, math.ceil(round(jobs / (rate_per_s * deadline_min * 60), 9)))


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Time every (workers, rate) pair; the arithmetic has no randomness."""
    jobs, deadline_min = params["jobs"], params["deadline_min"]
    rows = [
        (workers, rate, fanout_time_s(jobs, workers, rate))
        for rate in params["rates"]
        for workers in params["workers"]
    ]
    fastest = min(rows, key=lambda r: r[2])
    slowest = max(rows, key=lambda r: r[2])
    needed = [(rate, workers_for_deadline(jobs, rate, deadline_min)) for rate in params["rates"]]
    progress.update(1, 1)
    return {
        "summary": {
            "jobs": jobs,
            "combinations": len(rows),
            "fastest_min": round(fastest[2] / 60, 1),
            "fastest_workers": fastest[0],
            "fastest_rate_per_s": fastest[1],
            "slowest_min": round(slowest[2] / 60, 1),
            "slowest_workers": slowest[0],
            "slowest_rate_per_s": slowest[1],
            "deadline_min": deadline_min,
            "within_deadline": sum(1 for r in rows if r[2] <= deadline_min * 60),
            "workers_for_deadline": needed[0][1],  # at the first rate listed
        },
        "series": {
            "workers": [r[0] for r in rows],
            "rate_per_s": [r[1] for r in rows],
            "time_s": [r[2] for r in rows],
            "time_min": [round(r[2] / 60, 2) for r in rows],
        },
        "tables": {
            "deadline": table(
                phrase(
                    gettext_noop("Workers needed to finish %(jobs)s jobs within %(min)s min"),
                    jobs=num(jobs),
                    min=num(deadline_min),
                ),
                [gettext_noop("jobs per second per worker"), gettext_noop("workers needed")],
                [[num(rate), num(workers)] for rate, workers in needed],
            ),
        },
    }


def minutes(seconds: float) -> str:
    return f"{seconds / 60:,.1f} {gettext('min')}"


def hours_and_minutes(total_min: float) -> str:
    hours, rest = divmod(round(total_min), 60)
    if hours:
        return gettext("%(h)s h %(min)s min") % {"h": num(hours), "min": rest}
    return f"{rest} {gettext('min')}"


def headline(result: Mapping[str, Any]) -> list[str]:
    """One line per rate with every worker count, then the deadline."""
    s, series = result["summary"], result["series"]
    by_rate: dict[float, list[str]] = {}
    for workers, rate, time_s in zip(
        series["workers"], series["rate_per_s"], series["time_s"], strict=True
    ):
        by_rate.setdefault(rate, []).append(
            gettext("%(n)s workers %(time)s") % {"n": num(workers), "time": minutes(time_s)}
        )
    lines = [gettext("%(n)s jobs in the queue.") % {"n": num(s["jobs"])}]
    lines += [
        gettext("At %(rate)s jobs/s per worker: %(parts)s.")
        % {"rate": num(rate), "parts": " · ".join(parts)}
        for rate, parts in by_rate.items()
    ]
    lines.append(
        gettext(
            "Fastest: %(fw)s workers at %(fr)s/s (%(fm)s min). Slowest: %(sw)s workers at "
            "%(sr)s/s (%(sm)s min, that is %(shm)s)."
        )
        % {
            "fw": num(s["fastest_workers"]),
            "fr": num(s["fastest_rate_per_s"]),
            "fm": f"{s['fastest_min']:,.1f}",
            "sw": num(s["slowest_workers"]),
            "sr": num(s["slowest_rate_per_s"]),
            "sm": f"{s['slowest_min']:,.1f}",
            "shm": hours_and_minutes(s["slowest_min"]),
        }
    )
    first_rate = series["rate_per_s"][0]
    lines.append(
        gettext("To finish within %(min)s min at %(rate)s jobs/s each, you need %(n)s workers.")
        % {
            "min": num(s["deadline_min"]),
            "rate": num(first_rate),
            "n": num(s["workers_for_deadline"]),
        }
    )
    return lines


FIGURES = (
    Figure("jobs", gettext_noop("Jobs to send"), "int", gettext_noop("jobs")),
    Figure("combinations", gettext_noop("Worker × rate combinations compared"), "int"),
    Figure("fastest_min", gettext_noop("Fastest time"), "float", gettext_noop("min")),
    Figure(
        "fastest_workers",
        gettext_noop("Workers in the fastest combination"),
        "int",
        gettext_noop("workers"),
    ),
    Figure(
        "fastest_rate_per_s",
        gettext_noop("Rate per worker in the fastest combination"),
        "float",
        gettext_noop("jobs/s"),
    ),
    Figure("slowest_min", gettext_noop("Slowest time"), "float", gettext_noop("min")),
    Figure(
        "slowest_workers",
        gettext_noop("Workers in the slowest combination"),
        "int",
        gettext_noop("workers"),
    ),
    Figure(
        "slowest_rate_per_s",
        gettext_noop("Rate per worker in the slowest combination"),
        "float",
        gettext_noop("jobs/s"),
    ),
    Figure("deadline_min", gettext_noop("Deadline"), "float", gettext_noop("min")),
    Figure("within_deadline", gettext_noop("Combinations that meet the deadline"), "int"),
    Figure(
        "workers_for_deadline",
        gettext_noop("Workers needed to meet the deadline"),
        "int",
        gettext_noop("workers"),
        nullable=True,
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
