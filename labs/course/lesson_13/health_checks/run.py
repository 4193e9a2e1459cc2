"""Lesson 13's health checks, shallow against deep, behind a load balancer, as a lab."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.health_checks import simulate
from labs.text import gettext, gettext_noop, num


def _int(name: str, label: str, default: int, help_text: str, low: int, high: int, group: str):
    return Param(name, label, "int", default, help_text, min=low, max=high, group=group)


PARAMS = (
    _int(
        "instances",
        gettext_noop("Instances"),
        3,
        gettext_noop("Instance 1 is the sick one."),
        1,
        20,
        gettext_noop("The service"),
    ),
    _int(
        "seconds",
        gettext_noop("Seconds to watch"),
        60,
        gettext_noop("The length of the timeline."),
        10,
        600,
        gettext_noop("The service"),
    ),
    Param(
        "healthy_ms",
        gettext_noop("Time a healthy instance takes per request"),
        "float",
        100.0,
        gettext_noop("A normal request."),
        min=1,
        max=10_000,
        group=gettext_noop("The service"),
        unit="ms",
    ),
    Param(
        "sick_ms",
        gettext_noop("Time the sick instance takes to fail"),
        "float",
        1.0,
        gettext_noop("It fails fast: an error at once."),
        min=0.1,
        max=10_000,
        group=gettext_noop("The service"),
        unit="ms",
    ),
    _int(
        "db_down_from_s",
        gettext_noop("Database down from"),
        30,
        gettext_noop("The shared database blips here."),
        0,
        600,
        gettext_noop("The database"),
    ),
    _int(
        "db_down_until_s",
        gettext_noop("Database back at"),
        38,
        gettext_noop("The end of the blip."),
        0,
        600,
        gettext_noop("The database"),
    ),
    _int(
        "interval_s",
        gettext_noop("Seconds between checks"),
        5,
        gettext_noop("How often the load balancer checks each instance."),
        1,
        60,
        gettext_noop("The load balancer"),
    ),
    _int(
        "unhealthy_after",
        gettext_noop("Failed checks before taking it out"),
        2,
        gettext_noop("Failed checks in a row."),
        1,
        10,
        gettext_noop("The load balancer"),
    ),
    _int(
        "healthy_after",
        gettext_noop("Passed checks before sending to it again"),
        3,
        gettext_noop("Passed checks in a row."),
        1,
        10,
        gettext_noop("The load balancer"),
    ),
    Param(
        "balance",
        gettext_noop("How the load balancer picks an instance"),
        "choice",
        "round_robin",
        gettext_noop("In turn, or the one with the fewest requests in progress."),
        choices=(
            ("round_robin", gettext_noop("In turn (round robin)")),
            ("least_outstanding", gettext_noop("Fewest requests in progress")),
        ),
        group=gettext_noop("The load balancer"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["db_down_until_s"] < params["db_down_from_s"]:
        return {"db_down_until_s": gettext("The database must come back after it went down.")}
    return {}


def _run(params: Mapping[str, Any], kind: str):
    return simulate(
        instances=params["instances"],
        check=kind,  # type: ignore[arg-type]
        balance=params["balance"],
        seconds=params["seconds"],
        interval_s=params["interval_s"],
        unhealthy_after=params["unhealthy_after"],
        healthy_after=params["healthy_after"],
        db_down_from_s=params["db_down_from_s"],
        db_down_until_s=params["db_down_until_s"],
        healthy_ms=params["healthy_ms"],
        sick_ms=params["sick_ms"],
    )


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The same timeline with shallow checks and with deep ones."""
    shallow, deep = _run(params, "shallow"), _run(params, "deep")
    progress.update(1, 1)
    n = params["seconds"]
    return {
        "summary": {
            "shallow_failed_pct": round(100 * sum(r.failed_share for r in shallow) / n, 2),
            "deep_failed_pct": round(100 * sum(r.failed_share for r in deep) / n, 2),
            "deep_all_out_s": sum(1 for r in deep if r.in_rotation == 0),
            "shallow_sick_share_pct": round(100 * max(r.sick_share for r in shallow), 2),
        },
        "series": {
            "second": [r.second for r in shallow],
            "shallow_failed_pct": [round(100 * r.failed_share, 2) for r in shallow],
            "deep_failed_pct": [round(100 * r.failed_share, 2) for r in deep],
            "shallow_in_rotation": [r.in_rotation for r in shallow],
            "deep_in_rotation": [r.in_rotation for r in deep],
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "shallow": num(s["shallow_failed_pct"]),
        "deep": num(s["deep_failed_pct"]),
        "out": num(s["deep_all_out_s"]),
        "blip": num(p["db_down_until_s"] - p["db_down_from_s"]),
        "share": num(s["shallow_sick_share_pct"]),
    }
    return [
        gettext(
            "Shallow checks: the sick instance stays in and gets %(share)s%% of the traffic; "
            "%(shallow)s%% of all requests fail."
        )
        % values,
        gettext(
            "Deep checks: the sick instance is taken out, but the %(blip)s s database blip "
            "fails every check: no instance takes traffic for %(out)s s; %(deep)s%% of all "
            "requests fail."
        )
        % values,
    ]


FIGURES = (
    Figure("shallow_failed_pct", gettext_noop("Requests failed, shallow checks"), "float", "%"),
    Figure("deep_failed_pct", gettext_noop("Requests failed, deep checks"), "float", "%"),
    Figure(
        "deep_all_out_s",
        gettext_noop("Seconds with no instance in service, deep checks"),
        "int",
        "s",
    ),
    Figure(
        "shallow_sick_share_pct",
        gettext_noop("Traffic the sick instance gets, shallow checks"),
        "float",
        "%",
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
