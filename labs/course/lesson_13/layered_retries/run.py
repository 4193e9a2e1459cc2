"""Lesson 13's retries at every layer (27 calls for one click) against one retrying layer
and a retry budget, as a lab."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.layered_retries import POLICIES, outcome
from labs.text import gettext, gettext_noop, num, phrase

PARAMS = (
    Param(
        "layers",
        gettext_noop("Layers between the click and the service"),
        "int",
        3,
        gettext_noop("Each one calls the layer below it: for example API, service, SDK."),
        min=1,
        max=6,
        group=gettext_noop("The chain"),
    ),
    Param(
        "attempts",
        gettext_noop("Tries per layer"),
        "int",
        3,
        gettext_noop("The first call plus its retries, at each layer that retries."),
        min=1,
        max=10,
        group=gettext_noop("The chain"),
    ),
    Param(
        "failure_pct",
        gettext_noop("Calls the service fails"),
        "float",
        100.0,
        gettext_noop("100: the service is down. Each call fails on its own with this chance."),
        min=0,
        max=100,
        group=gettext_noop("The service"),
        unit="%",
    ),
    Param(
        "budget_pct",
        gettext_noop("Retry budget"),
        "float",
        10.0,
        gettext_noop(
            "Under the budget policy a layer retries at most this share of the calls it gets."
        ),
        min=0,
        max=100,
        group=gettext_noop("The service"),
        unit="%",
    ),
    Param(
        "clicks_per_s",
        gettext_noop("Clicks per second"),
        "int",
        100,
        gettext_noop("To turn calls per click into load on the service."),
        min=1,
        max=1_000_000,
        group=gettext_noop("The service"),
        unit="/s",
    ),
)

SWEEP_PCT = list(range(0, 101, 5))


def _outcomes(params: Mapping[str, Any], failure_pct: float) -> dict[str, Any]:
    return {
        policy: outcome(
            policy,
            params["layers"],
            params["attempts"],
            failure_pct / 100,
            params["budget_pct"] / 100,
        )
        for policy in POLICIES
    }


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Each policy at the chosen failure rate, and swept over every failure rate."""
    chosen = _outcomes(params, params["failure_pct"])
    swept = [_outcomes(params, pct) for pct in SWEEP_PCT]
    progress.update(1, 1)
    summary: dict[str, Any] = {}
    for policy, o in chosen.items():
        summary[f"{policy}_calls"] = round(o.service_calls, 4)
        summary[f"{policy}_load_per_s"] = round(o.service_calls * params["clicks_per_s"], 1)
        summary[f"{policy}_answered_pct"] = round(100 * o.success, 3)
    return {
        "summary": summary,
        "series": {
            "failure_pct": SWEEP_PCT,
            **{
                f"{policy}_calls": [round(row[policy].service_calls, 4) for row in swept]
                for policy in POLICIES
            },
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "layers": p["layers"],
        "attempts": p["attempts"],
        "failure": num(p["failure_pct"]),
        "every": num(s["every_layer_calls"]),
        "every_load": num(s["every_layer_load_per_s"]),
        "one": num(s["one_layer_calls"]),
        "one_load": num(s["one_layer_load_per_s"]),
        "budget": num(s["budget_calls"]),
        "budget_load": num(s["budget_load_per_s"]),
        "budget_pct": num(p["budget_pct"]),
    }
    return [
        gettext(
            "Every one of the %(layers)s layers tries %(attempts)s times: with %(failure)s%% "
            "of calls failing, one click reaches the service %(every)s times "
            "(%(every_load)s calls a second)."
        )
        % values,
        gettext(
            "Only the layer next to the service retries: %(one)s calls per click "
            "(%(one_load)s a second)."
        )
        % values,
        gettext(
            "Every layer retries, within a budget of %(budget_pct)s%% of its calls: %(budget)s "
            "calls per click (%(budget_load)s a second)."
        )
        % values,
    ]


_NAMES = {
    "every_layer": gettext_noop("every layer retries"),
    "one_layer": gettext_noop("only one layer retries"),
    "budget": gettext_noop("retry budget"),
}

_KINDS = (
    ("calls", gettext_noop("Calls per click reaching the service, %(policy)s"), ""),
    ("load_per_s", gettext_noop("Calls per second reaching the service, %(policy)s"), "/s"),
    ("answered_pct", gettext_noop("Clicks answered, %(policy)s"), "%"),
)

FIGURES = tuple(
    Figure(f"{policy}_{key}", phrase(label, policy=phrase(_NAMES[policy])), "float", unit)
    for policy in POLICIES
    for key, label, unit in _KINDS
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
