"""Lesson 12's blueprint, two tiers of it: an API scaled on CPU, and workers scaled by target
tracking on backlog per instance or on CPU, through the same burst."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, bounded
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim.scaling_signal import ScaleRow, cleared_at
from labs.sim.target_tracking import METRICS, Blueprint, Tier, backlog_target, late_seconds, play
from labs.text import gettext, gettext_noop, num, phrase

# Lesson 12's burst: 800 a second for three seconds, in ten seconds.
LESSON_ARRIVALS = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]

# How each worker policy is named in sentences, tables and figure labels.
POLICY_WORDS = {
    "backlog": gettext_noop("on backlog per instance"),
    "cpu": gettext_noop("on CPU"),
}

BURST, API, WORKERS = (
    gettext_noop("The burst"),
    gettext_noop("The API tier"),
    gettext_noop("The worker tier"),
)

PARAMS = (
    Param(
        "arrivals",
        gettext_noop("Requests arriving each second"),
        "int_list",
        LESSON_ARRIVALS,
        gettext_noop("Comma-separated: how many requests arrive in second 0, 1, 2, …"),
        min=0,
        max=100_000,
        max_items=600,
        group=BURST,
        unit=gettext_noop("req/s"),
    ),
    bounded(
        "api_per_instance",
        gettext_noop("Requests one API copy answers per second"),
        "int",
        1000,
        gettext_noop("Answering is CPU work: a copy busy all second is at 100% CPU."),
        1,
        100_000,
        API,
        gettext_noop("req/s"),
    ),
    bounded(
        "api_max_instances",
        gettext_noop("Most API copies"),
        "int",
        10,
        gettext_noop("The API is scaled on CPU, from one copy up to this many."),
        1,
        1_000,
        API,
    ),
    bounded(
        "per_worker",
        gettext_noop("Messages one worker finishes per second"),
        "int",
        100,
        gettext_noop("Lesson 12's worker: 100 a second, 10 ms a message."),
        1,
        100_000,
        WORKERS,
        gettext_noop("jobs/s"),
    ),
    bounded(
        "acceptable_latency_s",
        gettext_noop("How long a message may wait"),
        "int",
        1,
        gettext_noop(
            "Target backlog per instance = this ÷ the time one message takes, in whole messages."
        ),
        1,
        3_600,
        WORKERS,
        "s",
    ),
    bounded(
        "busy_cpu_pct",
        gettext_noop("CPU of a worker that is busy all the time"),
        "float",
        100.0,
        gettext_noop("100 for CPU work (drawing a certificate); low for work that waits on I/O."),
        1,
        100,
        WORKERS,
        "%",
    ),
    bounded(
        "min_workers",
        gettext_noop("Fewest workers"),
        "int",
        1,
        gettext_noop("Both policies."),
        1,
        1_000,
        WORKERS,
    ),
    bounded(
        "max_workers",
        gettext_noop("Most workers"),
        "int",
        10,
        gettext_noop("Both policies."),
        1,
        1_000,
        WORKERS,
    ),
    bounded(
        "cpu_target_pct",
        gettext_noop("CPU target"),
        "float",
        60.0,
        gettext_noop(
            "The API's policy, and the workers' CPU policy: copies = ceil(copies × CPU ÷ target)."
        ),
        1,
        100,
        WORKERS,
        "%",
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["min_workers"] > params["max_workers"]:
        return {"min_workers": gettext("Fewest workers must not be more than most workers.")}
    return {}


def tiers(params: Mapping[str, Any]) -> tuple[Tier, Tier]:
    """The API tier and the worker tier the student set."""
    api = Tier(
        per_instance=params["api_per_instance"],
        busy_cpu_pct=100.0,
        min_instances=1,
        max_instances=params["api_max_instances"],
        cpu_target_pct=params["cpu_target_pct"],
        acceptable_latency_s=params["acceptable_latency_s"],
    )
    workers = Tier(
        per_instance=params["per_worker"],
        busy_cpu_pct=params["busy_cpu_pct"],
        min_instances=params["min_workers"],
        max_instances=params["max_workers"],
        cpu_target_pct=params["cpu_target_pct"],
        acceptable_latency_s=params["acceptable_latency_s"],
    )
    return api, workers


def _policy_figures(metric: str, rows: list[ScaleRow], latency_s: int) -> dict[str, Any]:
    return {
        f"by_{metric}_peak_backlog": max(r.backlog for r in rows),
        f"by_{metric}_most_workers": max(r.workers for r in rows),
        f"by_{metric}_peak_age_s": max(r.oldest_age_s for r in rows),
        f"by_{metric}_late_s": late_seconds(rows, latency_s),
        f"by_{metric}_left_at_end": rows[-1].backlog,
        f"by_{metric}_worker_seconds": sum(r.workers for r in rows),
        f"by_{metric}_cleared_at_s": cleared_at(rows),
    }


def figures(params: Mapping[str, Any], played: Blueprint) -> dict[str, Any]:
    """The target, the API tier's figures, and each worker policy's."""
    summary: dict[str, Any] = {
        "target_per_instance": backlog_target(params["acceptable_latency_s"], params["per_worker"]),
        "ms_per_message": round(1000 / params["per_worker"], 2),
        "cpu_step_growth": round(params["busy_cpu_pct"] / params["cpu_target_pct"], 2),
        "api_most_instances": max(r.workers for r in played.api),
        "api_peak_cpu_pct": round(max(r.cpu_pct for r in played.api), 1),
        "api_peak_waiting": max(r.backlog for r in played.api),
        "worker_peak_cpu_pct": round(max(r.cpu_pct for r in played.workers["cpu"]), 1),
    }
    for metric in METRICS:
        summary |= _policy_figures(metric, played.workers[metric], params["acceptable_latency_s"])
    return summary


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The burst through both tiers; the model has no randomness."""
    played = play(params["arrivals"], *tiers(params))
    progress.update(1, 1)
    series: dict[str, list[Any]] = {
        "second": [r.second for r in played.api],
        "arrived": [r.arrived for r in played.api],
        "api_instances": [r.workers for r in played.api],
        "api_waiting": [r.backlog for r in played.api],
        "cpu_pct": [round(r.cpu_pct, 1) for r in played.workers["cpu"]],
    }
    for metric in METRICS:
        rows = played.workers[metric]
        series[f"by_{metric}_backlog"] = [r.backlog for r in rows]
        series[f"by_{metric}_workers"] = [r.workers for r in rows]
        series[f"by_{metric}_oldest_age_s"] = [r.oldest_age_s for r in rows]
    summary = figures(params, played)
    return {"summary": summary, "series": series, "tables": {"tiers": tier_table(summary, params)}}


def _verdict(metric: str, s: Mapping[str, Any], latency_s: int) -> dict[str, Any]:
    """ "kept every message within L s" or "N s over L s", from the run."""
    late = s[f"by_{metric}_late_s"]
    if late:
        return phrase(
            gettext_noop("%(late)s seconds ended with a message older than %(latency)s s"),
            late=num(late),
            latency=num(latency_s),
        )
    return phrase(gettext_noop("every message within %(latency)s s"), latency=num(latency_s))


def tier_table(s: Mapping[str, Any], p: Mapping[str, Any]) -> dict[str, Any]:
    """Each tier: what it scaled by, what to watch, and what this run showed of it."""
    watch_workers = gettext_noop("messages waiting; the oldest message's age; DLQ depth")
    rows = [
        [
            gettext_noop("API: answers and queues the job"),
            phrase(
                gettext_noop("copies on CPU, target %(target)s%%"), target=num(p["cpu_target_pct"])
            ),
            gettext_noop("requests waiting for a copy; CPU; p99 latency"),
            phrase(
                gettext_noop(
                    "at most %(copies)s copies, CPU up to %(cpu)s%%, "
                    "%(waiting)s requests waiting at the peak"
                ),
                copies=num(s["api_most_instances"]),
                cpu=num(s["api_peak_cpu_pct"]),
                waiting=num(s["api_peak_waiting"]),
            ),
        ],
        [
            gettext_noop("workers, on backlog per instance"),
            phrase(
                gettext_noop("backlog per instance, target %(target)s (%(latency)s s ÷ %(ms)s ms)"),
                target=num(s["target_per_instance"]),
                latency=num(p["acceptable_latency_s"]),
                ms=num(s["ms_per_message"]),
            ),
            watch_workers,
        ],
        [
            gettext_noop("workers, on CPU"),
            phrase(gettext_noop("CPU, target %(target)s%%"), target=num(p["cpu_target_pct"])),
            watch_workers,
        ],
    ]
    for row, metric in zip(rows[1:], METRICS, strict=True):
        row.append(
            phrase(
                gettext_noop(
                    "at most %(workers)s workers, backlog peak %(peak)s, "
                    "oldest waited %(age)s s: %(verdict)s"
                ),
                workers=num(s[f"by_{metric}_most_workers"]),
                peak=num(s[f"by_{metric}_peak_backlog"]),
                age=num(s[f"by_{metric}_peak_age_s"]),
                verdict=_verdict(metric, s, p["acceptable_latency_s"]),
            )
        )
    return table(
        gettext_noop("Each tier: what it scales by, what to watch"),
        [
            gettext_noop("tier"),
            gettext_noop("scales by"),
            gettext_noop("watch"),
            gettext_noop("in this run"),
        ],
        rows,
    )


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    words = {
        "ms": num(s["ms_per_message"]),
        "latency": num(p["acceptable_latency_s"]),
        "target": num(s["target_per_instance"]),
        "cpu_target": num(p["cpu_target_pct"]),
        "busy": num(p["busy_cpu_pct"]),
        "growth": num(s["cpu_step_growth"]),
        "worker_cpu": num(s["worker_peak_cpu_pct"]),
        "fewest": num(p["min_workers"]),
        "most": num(p["max_workers"]),
        "copies": num(s["api_most_instances"]),
        "api_cpu": num(s["api_peak_cpu_pct"]),
        "api_waiting": num(s["api_peak_waiting"]),
    }
    for metric in METRICS:
        for key in ("peak_backlog", "most_workers", "peak_age_s", "late_s", "worker_seconds"):
            words[f"{metric}_{key}"] = num(s[f"by_{metric}_{key}"])
    lines = [
        gettext(
            "A worker takes %(ms)s ms a message and a message may wait %(latency)s s, so "
            "the target is %(latency)s s ÷ %(ms)s ms = %(target)s messages per worker."
        )
        % words
    ]
    for metric in METRICS:
        lines.append(
            gettext(
                "Target tracking %(policy)s: largest pool %(workers)s, backlog peak %(peak)s, "
                "the oldest message waited up to %(age)s s; seconds that ended with a message "
                "older than %(latency)s s: %(late)s."
            )
            % {
                "policy": gettext(POLICY_WORDS[metric]),
                "workers": words[f"{metric}_most_workers"],
                "peak": words[f"{metric}_peak_backlog"],
                "age": words[f"{metric}_peak_age_s"],
                "late": words[f"{metric}_late_s"],
                "latency": words["latency"],
            }
        )
    lines.append(_cpu_verdict(s, p) % words)
    if s["by_backlog_late_s"]:
        if s["by_backlog_most_workers"] == p["max_workers"]:
            lines.append(
                gettext(
                    "On backlog per instance the pool reached its most, %(most)s workers, and "
                    "messages still waited longer than %(latency)s s: the most is too low for "
                    "this burst and this wait."
                )
                % words
            )
        else:
            lines.append(
                gettext(
                    "On backlog per instance too, %(backlog_late_s)s seconds ended over "
                    "%(latency)s s: the policy reads each second's backlog a second late, and "
                    "a steep burst outruns it."
                )
                % words
            )
    lines.append(
        gettext(
            "Workers paid for, second by second: %(backlog_worker_seconds)s worker-seconds on "
            "backlog per instance, %(cpu_worker_seconds)s on CPU."
        )
        % words
    )
    if s["api_peak_waiting"]:
        api = gettext(
            "The API tier, scaled on CPU because answering is CPU work, grew to %(copies)s "
            "copies at up to %(api_cpu)s%% CPU, late too: at the peak %(api_waiting)s "
            "requests waited for a copy."
        )
    else:
        api = gettext(
            "The API tier, scaled on CPU because answering is CPU work, grew to %(copies)s "
            "copies at up to %(api_cpu)s%% CPU, and no request waited for a copy."
        )
    lines.append(api % words)
    return lines


def _cpu_verdict(s: Mapping[str, Any], p: Mapping[str, Any]) -> str:
    """What the CPU policy did to the worker tier, against backlog per instance."""
    if s["by_cpu_most_workers"] == s["by_backlog_most_workers"] == p["min_workers"]:
        return gettext(
            "Neither policy needed more than %(fewest)s workers: this burst fits the fewest."
        )
    if (
        s["by_cpu_most_workers"] == p["min_workers"]
        and s["worker_peak_cpu_pct"] < (p["cpu_target_pct"])
    ):
        return gettext(
            "CPU misled: the workers never showed more than %(worker_cpu)s%% CPU, under the "
            "%(cpu_target)s%% target, so the CPU policy never added a worker while the "
            "backlog grew to %(cpu_peak_backlog)s."
        )
    if (s["by_cpu_late_s"], s["by_cpu_peak_backlog"]) > (
        s["by_backlog_late_s"],
        s["by_backlog_peak_backlog"],
    ):
        return gettext(
            "CPU lagged: a busy worker shows at most %(busy)s%% CPU, so each second the CPU "
            "policy could grow the pool at most %(growth)s times, and the backlog peaked at "
            "%(cpu_peak_backlog)s against %(backlog_peak_backlog)s on backlog per instance."
        )
    return gettext(
        "Here CPU kept up with backlog per instance: busy workers at %(busy)s%% CPU, against "
        "a %(cpu_target)s%% target, could grow the pool %(growth)s times a second."
    )


def _figures(metric: str) -> tuple[Figure, ...]:
    policy = phrase(POLICY_WORDS[metric])
    return (
        Figure(
            f"by_{metric}_peak_backlog",
            phrase(gettext_noop("Peak backlog, workers %(policy)s"), policy=policy),
            "int",
            gettext_noop("jobs"),
        ),
        Figure(
            f"by_{metric}_most_workers",
            phrase(gettext_noop("Most workers, %(policy)s"), policy=policy),
            "int",
            gettext_noop("workers"),
        ),
        Figure(
            f"by_{metric}_peak_age_s",
            phrase(gettext_noop("Longest wait of the oldest message, %(policy)s"), policy=policy),
            "int",
            "s",
        ),
        Figure(
            f"by_{metric}_late_s",
            phrase(
                gettext_noop("Seconds with a message waiting too long, %(policy)s"), policy=policy
            ),
            "int",
            "s",
        ),
        Figure(
            f"by_{metric}_left_at_end",
            phrase(gettext_noop("Messages still waiting at the end, %(policy)s"), policy=policy),
            "int",
            gettext_noop("jobs"),
        ),
        Figure(
            f"by_{metric}_worker_seconds",
            phrase(gettext_noop("Worker-seconds paid for, %(policy)s"), policy=policy),
            "int",
        ),
        Figure(
            f"by_{metric}_cleared_at_s",
            phrase(gettext_noop("Second the queue was empty for good, %(policy)s"), policy=policy),
            "int",
            "s",
            nullable=True,
        ),
    )


FIGURES = (
    Figure(
        "target_per_instance",
        gettext_noop("Target backlog per instance"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure("ms_per_message", gettext_noop("Time one message takes"), "float", gettext_noop("ms")),
    Figure(
        "cpu_step_growth",
        gettext_noop("Most the CPU policy can grow the pool in a second"),
        "float",
    ),
    Figure("api_most_instances", gettext_noop("Most API copies"), "int"),
    Figure("api_peak_cpu_pct", gettext_noop("Highest CPU of the API tier"), "float", "%"),
    Figure(
        "api_peak_waiting",
        gettext_noop("Most requests waiting for an API copy"),
        "int",
        gettext_noop("requests"),
    ),
    Figure(
        "worker_peak_cpu_pct",
        gettext_noop("Highest worker CPU the CPU policy saw"),
        "float",
        "%",
    ),
    *(figure for metric in METRICS for figure in _figures(metric)),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
