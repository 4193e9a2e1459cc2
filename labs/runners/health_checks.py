"""Lesson 13's health checks, shallow against deep, behind a load balancer, as a lab."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext

from labs.catalogue.lazy import gettext_lazy as _
from labs.interface.figures import Figure
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.health_checks import simulate
from labs.text import num


def _int(name: str, label: str, default: int, help_text: str, low: int, high: int, group: str):
    return Param(name, label, "int", default, help_text, min=low, max=high, group=group)


PARAMS = (
    _int("instances", _("Instances"), 3, _("Instance 1 is the sick one."), 1, 20, _("The service")),
    _int(
        "seconds",
        _("Seconds to watch"),
        60,
        _("The length of the timeline."),
        10,
        600,
        _("The service"),
    ),
    Param(
        "healthy_ms",
        _("Time a healthy instance takes per request"),
        "float",
        100.0,
        _("A normal request."),
        min=1,
        max=10_000,
        group=_("The service"),
        unit="ms",
    ),
    Param(
        "sick_ms",
        _("Time the sick instance takes to fail"),
        "float",
        1.0,
        _("It fails fast: an error at once."),
        min=0.1,
        max=10_000,
        group=_("The service"),
        unit="ms",
    ),
    _int(
        "db_down_from_s",
        _("Database down from"),
        30,
        _("The shared database blips here."),
        0,
        600,
        _("The database"),
    ),
    _int(
        "db_down_until_s",
        _("Database back at"),
        38,
        _("The end of the blip."),
        0,
        600,
        _("The database"),
    ),
    _int(
        "interval_s",
        _("Seconds between checks"),
        5,
        _("How often the load balancer checks each instance."),
        1,
        60,
        _("The load balancer"),
    ),
    _int(
        "unhealthy_after",
        _("Failed checks before taking it out"),
        2,
        _("Failed checks in a row."),
        1,
        10,
        _("The load balancer"),
    ),
    _int(
        "healthy_after",
        _("Passed checks before sending to it again"),
        3,
        _("Passed checks in a row."),
        1,
        10,
        _("The load balancer"),
    ),
    Param(
        "balance",
        _("How the load balancer picks an instance"),
        "choice",
        "round_robin",
        _("In turn, or the one with the fewest requests in progress."),
        choices=(
            ("round_robin", _("In turn (round robin)")),
            ("least_outstanding", _("Fewest requests in progress")),
        ),
        group=_("The load balancer"),
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
    Figure("shallow_failed_pct", _("Requests failed, shallow checks"), "float", "%"),
    Figure("deep_failed_pct", _("Requests failed, deep checks"), "float", "%"),
    Figure("deep_all_out_s", _("Seconds with no instance in service, deep checks"), "int", "s"),
    Figure(
        "shallow_sick_share_pct", _("Traffic the sick instance gets, shallow checks"), "float", "%"
    ),
)
