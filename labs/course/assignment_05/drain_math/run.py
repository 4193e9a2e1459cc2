"""Assignment 05's drain arithmetic as a lab: backlog ÷ net capacity, or never."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.drain_math import backlog_at, drain_time, net_capacity
from labs.text import gettext, gettext_noop, num

# The arrival rates the second chart sweeps, as shares of the capacity (0 to 120 %).
SWEEP_STEPS = 60

PARAMS = (
    Param(
        "backlog",
        gettext_noop("Jobs waiting now"),
        "int",
        600,
        gettext_noop("The backlog when you start counting."),
        min=0,
        max=10_000_000,
        group=gettext_noop("The queue"),
        unit="jobs",
    ),
    Param(
        "capacity_per_s",
        gettext_noop("Jobs the workers finish per second"),
        "float",
        50.0,
        gettext_noop("All the workers together, when nothing slows them down."),
        min=0.1,
        max=1_000_000,
        group=gettext_noop("The queue"),
        unit="/s",
    ),
    Param(
        "arrivals_per_s",
        gettext_noop("New jobs arriving per second"),
        "float",
        20.0,
        gettext_noop("They keep coming while the backlog drains."),
        min=0,
        max=1_000_000,
        group=gettext_noop("The queue"),
        unit="/s",
    ),
    Param(
        "horizon_s",
        gettext_noop("Seconds on the chart"),
        "int",
        60,
        gettext_noop("How far ahead the backlog chart looks."),
        min=1,
        max=86_400,
        group=gettext_noop("The chart"),
        unit="s",
    ),
)

# Points on the backlog chart at most: the line is straight, so a few hundred suffice.
CHART_POINTS = 200


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The drain time, the backlog over the horizon, and the drain time against arrivals."""
    backlog, capacity, arrivals = (
        params["backlog"],
        params["capacity_per_s"],
        params["arrivals_per_s"],
    )
    horizon = params["horizon_s"]
    step = max(1, horizon // CHART_POINTS)
    seconds = list(range(0, horizon + 1, step))
    drain = drain_time(backlog, capacity, arrivals)
    sweep = [capacity * 1.2 * i / SWEEP_STEPS for i in range(SWEEP_STEPS + 1)]
    progress.update(1, 1)
    return {
        "summary": {
            "net_capacity_per_s": round(net_capacity(capacity, arrivals), 3),
            "drain_s": None if drain is None else round(drain, 3),
            "backlog_at_end": round(backlog_at(backlog, capacity, arrivals, horizon), 3),
        },
        "series": {
            "second": seconds,
            "backlog": [round(backlog_at(backlog, capacity, arrivals, t), 3) for t in seconds],
        },
        "tables": {
            "sweep": {
                "arrivals_per_s": [round(a, 3) for a in sweep],
                "drain_s": [
                    None if (d := drain_time(backlog, capacity, a)) is None else round(d, 3)
                    for a in sweep
                ],
            }
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "backlog": num(p["backlog"]),
        "capacity": num(p["capacity_per_s"]),
        "arrivals": num(p["arrivals_per_s"]),
        "net": num(abs(s["net_capacity_per_s"])),
    }
    if s["net_capacity_per_s"] > 0:
        lines = [
            gettext(
                "The workers finish %(capacity)s a second and %(arrivals)s arrive, so the "
                "backlog shrinks by %(net)s a second."
            )
            % values,
            gettext(
                "%(backlog)s waiting ÷ %(net)s a second = %(drain)s s until the queue is empty."
            )
            % {**values, "drain": num(s["drain_s"])},
        ]
    else:
        lines = [
            gettext(
                "%(arrivals)s jobs arrive each second and the workers finish only %(capacity)s: "
                "the backlog grows by %(net)s a second."
            )
            % values,
            gettext(
                "It never empties at these rates: lower the arrivals or add capacity. "
                "More waiting does not help."
            ),
        ]
    lines.append(
        gettext("After %(horizon)s s, %(left)s jobs are still waiting.")
        % {"horizon": num(p["horizon_s"]), "left": num(round(s["backlog_at_end"]))}
    )
    return lines


FIGURES = (
    Figure("net_capacity_per_s", gettext_noop("Net capacity"), "float", "/s"),
    Figure("drain_s", gettext_noop("Time to empty the queue"), "float", "s", nullable=True),
    Figure("backlog_at_end", gettext_noop("Jobs waiting at the end of the chart"), "float", "jobs"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
