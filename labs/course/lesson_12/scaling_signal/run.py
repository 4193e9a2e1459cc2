"""Lessons 07 and 12: scale I/O-bound workers on CPU, queue depth, backlog per worker or
the oldest message's age, side by side on the same burst."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, bounded
from labs.interface.progress import Progress
from labs.sim.scaling_signal import SIGNALS, ScaleRow, Settings, cleared_at, scale
from labs.text import gettext, gettext_noop, num, phrase

# Lesson 12's burst: 800 a second for three seconds, in ten seconds.
LESSON_ARRIVALS = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]

RULE_WORDS = {
    "cpu": gettext_noop("on CPU"),
    "depth": gettext_noop("on a queue-depth alarm"),
    "per_worker": gettext_noop("on backlog per worker"),
    "age": gettext_noop("on the oldest message's age"),
}


WORK, POOL, RULES = (
    gettext_noop("The work"),
    gettext_noop("The pool"),
    gettext_noop("The four scalers"),
)

PARAMS = (
    Param(
        "arrivals",
        gettext_noop("Jobs arriving each second"),
        "int_list",
        LESSON_ARRIVALS,
        gettext_noop("Comma-separated: how many jobs arrive in second 0, 1, 2, …"),
        min=0,
        max=100_000,
        max_items=600,
        group=WORK,
        unit=gettext_noop("jobs/s"),
    ),
    bounded(
        "per_worker",
        gettext_noop("Jobs one worker finishes per second"),
        "int",
        100,
        gettext_noop("A busy worker's speed."),
        1,
        100_000,
        WORK,
        gettext_noop("jobs/s"),
    ),
    bounded(
        "busy_cpu_pct",
        gettext_noop("CPU of a worker that is busy all the time"),
        "float",
        5.0,
        gettext_noop("Low for I/O-bound work (it waits on the network); 100 for CPU-bound work."),
        1,
        100,
        WORK,
        "%",
    ),
    bounded(
        "min_workers",
        gettext_noop("Fewest workers"),
        "int",
        1,
        gettext_noop("Every scaler."),
        1,
        1_000,
        POOL,
    ),
    bounded(
        "max_workers",
        gettext_noop("Most workers"),
        "int",
        10,
        gettext_noop("Every scaler."),
        1,
        1_000,
        POOL,
    ),
    bounded(
        "cooldown_s",
        gettext_noop("Cool-down after a change"),
        "int",
        1,
        gettext_noop("Seconds a scaler waits after changing the pool before it changes it again."),
        1,
        600,
        POOL,
        "s",
    ),
    bounded(
        "cpu_target_pct",
        gettext_noop("CPU scaler: target CPU"),
        "float",
        60.0,
        gettext_noop("Workers = ceil(workers × CPU ÷ target)."),
        1,
        100,
        RULES,
        "%",
    ),
    bounded(
        "depth_alarm",
        gettext_noop("Depth scaler: alarm above"),
        "int",
        100,
        gettext_noop(
            "One worker more each time more than this many wait; one fewer on an empty queue."
        ),
        0,
        1_000_000,
        RULES,
        gettext_noop("jobs"),
    ),
    bounded(
        "per_waiting",
        gettext_noop("Backlog-per-worker scaler: jobs per worker"),
        "int",
        100,
        gettext_noop("Workers = ceil(backlog ÷ this): what one worker may have waiting."),
        1,
        1_000_000,
        RULES,
        gettext_noop("jobs"),
    ),
    bounded(
        "age_target_s",
        gettext_noop("Age scaler: target age of the oldest message"),
        "float",
        2.0,
        gettext_noop("Workers = ceil(workers × oldest age ÷ target)."),
        0.1,
        3_600,
        RULES,
        "s",
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["min_workers"] > params["max_workers"]:
        return {"min_workers": gettext("Fewest workers must not be more than most workers.")}
    return {}


def settings(params: Mapping[str, Any]) -> Settings:
    return Settings(
        per_worker=params["per_worker"],
        busy_cpu_pct=params["busy_cpu_pct"],
        min_workers=params["min_workers"],
        max_workers=params["max_workers"],
        cooldown_s=params["cooldown_s"],
        cpu_target_pct=params["cpu_target_pct"],
        depth_alarm=params["depth_alarm"],
        per_waiting=params["per_waiting"],
        age_target_s=params["age_target_s"],
    )


def _summary(signal: str, rows: list[ScaleRow]) -> dict[str, Any]:
    return {
        f"{signal}_peak_backlog": max(r.backlog for r in rows),
        f"{signal}_most_workers": max(r.workers for r in rows),
        f"{signal}_left_at_end": rows[-1].backlog,
        f"{signal}_peak_age_s": max(r.oldest_age_s for r in rows),
    }


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The same arrivals under each of the four scalers; the model has no randomness."""
    given = settings(params)
    by_signal = {signal: scale(params["arrivals"], signal, given) for signal in SIGNALS}
    progress.update(1, 1)
    summary: dict[str, Any] = {}
    series: dict[str, list[Any]] = {
        "second": [r.second for r in by_signal["cpu"]],
        "arrived": [r.arrived for r in by_signal["cpu"]],
    }
    for signal, rows in by_signal.items():
        summary |= _summary(signal, rows)
        series[f"{signal}_backlog"] = [r.backlog for r in rows]
        series[f"{signal}_workers"] = [r.workers for r in rows]
        series[f"{signal}_oldest_age_s"] = [r.oldest_age_s for r in rows]
    summary["cpu_peak_pct"] = round(max(r.cpu_pct for r in by_signal["cpu"]), 2)
    summary["per_worker_cleared_at_s"] = cleared_at(by_signal["per_worker"])
    series["cpu_pct"] = [round(r.cpu_pct, 2) for r in by_signal["cpu"]]
    return {"summary": summary, "series": series, "tables": {}}


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    seconds = len(p["arrivals"])
    lines = []
    if s["cpu_peak_pct"] < p["cpu_target_pct"]:
        lines.append(
            gettext(
                "The workers wait on the network: even flat out they show %(cpu)s%% CPU, "
                "under the %(target)s%% target, so the CPU scaler never adds a worker."
            )
            % {"cpu": num(s["cpu_peak_pct"]), "target": num(p["cpu_target_pct"])}
        )
    for signal in SIGNALS:
        lines.append(
            gettext(
                "Scaling %(rule)s: largest pool %(workers)s; backlog peak %(peak)s; the "
                "oldest job waited up to %(age)s s; still waiting after %(seconds)s s: %(left)s."
            )
            % {
                "rule": gettext(RULE_WORDS[signal]),
                "workers": num(s[f"{signal}_most_workers"]),
                "peak": num(s[f"{signal}_peak_backlog"]),
                "age": num(s[f"{signal}_peak_age_s"]),
                "left": num(s[f"{signal}_left_at_end"]),
                "seconds": num(seconds),
            }
        )
    return lines


def _figures(signal: str) -> tuple[Figure, ...]:
    rule = RULE_WORDS[signal]
    return (
        Figure(
            f"{signal}_peak_backlog",
            phrase(gettext_noop("Peak backlog, scaling %(rule)s"), rule=phrase(rule)),
            "int",
            gettext_noop("jobs"),
        ),
        Figure(
            f"{signal}_most_workers",
            phrase(gettext_noop("Most workers, scaling %(rule)s"), rule=phrase(rule)),
            "int",
            gettext_noop("workers"),
        ),
        Figure(
            f"{signal}_left_at_end",
            phrase(
                gettext_noop("Jobs still waiting at the end, scaling %(rule)s"), rule=phrase(rule)
            ),
            "int",
            gettext_noop("jobs"),
        ),
        Figure(
            f"{signal}_peak_age_s",
            phrase(
                gettext_noop("Longest wait of the oldest job, scaling %(rule)s"), rule=phrase(rule)
            ),
            "int",
            "s",
        ),
    )


FIGURES = (
    *(figure for signal in SIGNALS for figure in _figures(signal)),
    Figure("cpu_peak_pct", gettext_noop("Highest CPU the CPU scaler saw"), "float", "%"),
    Figure(
        "per_worker_cleared_at_s",
        gettext_noop("Second the queue was empty for good, scaling on backlog per worker"),
        "int",
        "s",
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
