"""Lesson 07's provider outage on the real Redis: the front keeps answering, the jobs wait, an
alarm on the oldest job's age fires and clears; more workers than the provider allows get 429s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments.isolation import SERIES, provider_outage
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, num, num_or_dash

KEEPS_DLQ = False

MINUTES = gettext_noop("min")
MINUTE_S = 0.2  # real seconds per lesson minute: the 10-minute outage takes 2 s


PARAMS = (
    Param(
        "arrivals_per_min",
        gettext_noop("Jobs the front accepts each minute"),
        "int",
        30,
        gettext_noop("For 20 lesson minutes; each is one SMS job."),
        min=1,
        max=120,
        group=gettext_noop("The front and the workers"),
        unit=gettext_noop("/min"),
    ),
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        4,
        gettext_noop("Each sends one SMS at a time."),
        min=1,
        max=16,
        group=gettext_noop("The front and the workers"),
    ),
    Param(
        "rate_per_worker_per_min",
        gettext_noop("SMS one worker sends each minute"),
        "int",
        25,
        gettext_noop("When the provider answers."),
        min=5,
        max=100,
        group=gettext_noop("The front and the workers"),
        unit=gettext_noop("/min"),
    ),
    Param(
        "down_from_min",
        gettext_noop("Provider down from minute"),
        "int",
        3,
        gettext_noop("Every call fails while it is down."),
        min=0,
        max=19,
        group=gettext_noop("The SMS provider"),
        unit=MINUTES,
    ),
    Param(
        "down_for_min",
        gettext_noop("Provider down for"),
        "int",
        10,
        gettext_noop("The lesson's outage is 10 minutes."),
        min=0,
        max=20,
        group=gettext_noop("The SMS provider"),
        unit=MINUTES,
    ),
    Param(
        "provider_limit",
        gettext_noop("Calls the provider takes at once"),
        "int",
        4,
        gettext_noop("More than this and it answers 429 Too Many Requests."),
        min=1,
        max=16,
        group=gettext_noop("The SMS provider"),
    ),
    Param(
        "alarm_age_min",
        gettext_noop("Alarm when the oldest job has waited"),
        "int",
        5,
        gettext_noop("An alarm on the age of the oldest message (ApproximateAgeOfOldestMessage)."),
        min=1,
        max=20,
        group=gettext_noop("The queue"),
        unit=MINUTES,
    ),
    Param(
        "max_receives",
        gettext_noop("maxReceiveCount"),
        "int",
        20,
        gettext_noop("A job that fails this many receives goes to the DLQ."),
        min=1,
        max=50,
        group=gettext_noop("The queue"),
    ),
)

# The run stops at this many lesson minutes (12 s); `check` refuses work that needs longer.
MAX_RUN_MIN = 60


def _needed_min(params: Mapping[str, Any]) -> tuple[int, float]:
    """The jobs of twenty lesson minutes, and the lesson minutes the workers need to send
    them all as fast as the provider lets them, the outage included."""
    jobs = params["arrivals_per_min"] * 20
    sending = min(params["workers"], params["provider_limit"]) * params["rate_per_worker_per_min"]
    return jobs, jobs / sending + params["down_for_min"]


def check(params: Mapping[str, Any]) -> dict[str, str]:
    jobs, needed = _needed_min(params)
    if needed > MAX_RUN_MIN:
        return {
            "workers": gettext(
                "These workers need about %(needed)s lesson minutes for %(jobs)s jobs and the "
                "outage, more than the %(most)s a run may last. Add workers or send faster."
            )
            % {"needed": num(round(needed)), "jobs": num(jobs), "most": MAX_RUN_MIN}
        }
    return {}


LIVE_KEYS = SERIES  # the experiment's readings, shown live as they come


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Twenty lesson minutes of jobs through a real queue to a provider that goes down."""
    result = provider_outage(
        arrivals_per_min=params["arrivals_per_min"],
        workers=params["workers"],
        rate_per_worker_per_min=params["rate_per_worker_per_min"],
        provider_limit=params["provider_limit"],
        down_from_min=params["down_from_min"],
        down_for_min=params["down_for_min"],
        alarm_age_min=params["alarm_age_min"],
        max_receives=params["max_receives"],
        minute_s=MINUTE_S,
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s = result["summary"]
    names = [f.name for f in FIGURES if f not in FOOTER_FIGURES]
    return {
        "summary": {name: s[name] for name in names} | run_footer(s),
        "series": result["series"],
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "jobs": num(s["jobs"]),
        "answered": num(s["front_answered"]),
        "slowest": num(s["front_slowest_ms"]),
        "down": num(p["down_for_min"]),
        "age": num(s["oldest_age_max_min"]),
        "limit": num(p["alarm_age_min"]),
        "fired": num_or_dash(s["alarm_fired_min"]),
        "cleared": num_or_dash(s["alarm_cleared_min"]),
        "done": num(s["done"]),
        "dlq": num(s["dlq"]),
        "lost": num(s["lost"]),
        "throttled": num(s["throttled"]),
        "calls": num(s["calls"]),
        "workers": num(p["workers"]),
        "allowed": num(p["provider_limit"]),
    }
    lines = [
        gettext(
            "The front answered all %(answered)s of %(jobs)s requests (the slowest queue write "
            "took %(slowest)s ms) while the provider was down for %(down)s minutes."
        )
        % values,
        gettext("%(done)s jobs sent, %(dlq)s in the DLQ, %(lost)s lost.") % values,
    ]
    if s["alarm_fired_min"] is not None:
        lines.append(
            gettext(
                "The oldest job waited up to %(age)s minutes: the alarm at %(limit)s minutes "
                "fired at minute %(fired)s and cleared at minute %(cleared)s."
            )
            % values
        )
    else:
        lines.append(
            gettext(
                "The oldest job waited at most %(age)s minutes: the alarm at %(limit)s minutes "
                "never fired."
            )
            % values
        )
    if s["dlq"]:
        lines.append(
            gettext(
                "maxReceiveCount ran out during the outage: healthy jobs were parked in the "
                "DLQ and must be redriven."
            )
        )
    if s["throttled"]:
        lines.append(
            gettext(
                "%(workers)s workers against a provider that takes %(allowed)s calls at once: "
                "%(throttled)s of %(calls)s calls were refused with 429."
            )
            % values
        )
    return lines


FIGURES = (
    Figure("jobs", gettext_noop("Jobs"), "int"),
    Figure("front_answered", gettext_noop("Requests the front answered"), "int"),
    Figure("front_slowest_ms", gettext_noop("Slowest queue write by the front"), "float", "ms"),
    Figure("done", gettext_noop("Jobs sent"), "int"),
    Figure("dlq", gettext_noop("Jobs in the DLQ"), "int"),
    Figure("lost", gettext_noop("Jobs lost"), "int"),
    Figure("oldest_age_max_min", gettext_noop("Longest wait of the oldest job"), "float", MINUTES),
    Figure("alarm_fired_min", gettext_noop("Age alarm fired at minute"), "float", nullable=True),
    Figure(
        "alarm_cleared_min", gettext_noop("Age alarm cleared at minute"), "float", nullable=True
    ),
    Figure("calls", gettext_noop("Calls to the provider"), "int"),
    Figure("failed_while_down", gettext_noop("Calls failed while it was down"), "int"),
    Figure("throttled", gettext_noop("Calls refused with 429"), "int"),
    Figure("peak_calls_at_once", gettext_noop("Most calls in progress at once"), "int"),
    Figure("receives", gettext_noop("Receives"), "int"),
    Figure(
        "backlog_cleared_min",
        gettext_noop("Queue empty again at minute"),
        "float",
        nullable=True,
    ),
    *FOOTER_FIGURES,
)


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: twenty lesson minutes of arrivals, or the outage and the backlog after
    it if they need longer, up to the run's cap of `MAX_RUN_MIN` lesson minutes."""
    minutes = min(MAX_RUN_MIN, max(20.0, _needed_min(params)[1]))
    return wall_cost(minutes * MINUTE_S, ("arrivals_per_min", "down_for_min"))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    keeps_dlq=KEEPS_DLQ,
    cost=cost,
)
