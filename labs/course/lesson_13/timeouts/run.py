"""Lesson 13's timeouts: Little's law counts the stuck requests a long wait piles up."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import call_with_timeout, littles_law
from labs.text import gettext, gettext_noop, num, phrase

# A call's outcome as the table says it (the series keeps the key).
OUTCOME_WORDS = {"ok": gettext_noop("ok"), "timeout": gettext_noop("timed out")}

PARAMS = (
    Param(
        "rate_per_s",
        gettext_noop("Requests arriving each second"),
        "int",
        2_000,
        gettext_noop("How many requests a second call the slow service."),
        min=1,
        max=1_000_000,
        group=gettext_noop("Little's law"),
        unit=gettext_noop("req/s"),
    ),
    Param(
        "waits_s",
        gettext_noop("Longest waits to compare"),
        "float_list",
        [30.0, 1.0, 0.2],
        gettext_noop("Comma-separated seconds: how long each caller may wait before it gives up."),
        min=0.001,
        max=3_600,
        max_items=6,
        group=gettext_noop("Little's law"),
        unit=gettext_noop("s"),
    ),
    Param(
        "timeout_ms",
        gettext_noop("Timeout"),
        "float",
        1_000.0,
        gettext_noop("The caller stops waiting after this long."),
        min=1,
        max=600_000,
        group=gettext_noop("One call with a timeout"),
        unit=gettext_noop("ms"),
    ),
    Param(
        "latencies_ms",
        gettext_noop("How long the service takes to answer"),
        "float_list",
        [120.0, 900.0, 1_500.0, 30_000.0],
        gettext_noop("Comma-separated milliseconds: one call for each."),
        min=0,
        max=600_000,
        max_items=10,
        group=gettext_noop("One call with a timeout"),
        unit=gettext_noop("ms"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """Each compared value once, so no two bars say the same thing."""
    errors = {}
    once = {
        "waits_s": gettext_noop("Give each wait only once."),
        "latencies_ms": gettext_noop("Give each answer time only once."),
    }
    for name, message in once.items():
        values = params[name]
        if len(set(values)) != len(values):
            errors[name] = gettext(message)
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Count the stuck requests for each wait, and play each call against the timeout."""
    rate, timeout_ms = params["rate_per_s"], params["timeout_ms"]
    stuck = [littles_law(rate, wait) for wait in params["waits_s"]]
    calls = [(lat, *call_with_timeout(lat, timeout_ms)) for lat in params["latencies_ms"]]
    progress.update(1, 1)
    return {
        "summary": {
            "rate_per_s": rate,
            "most_stuck": round(max(stuck)),
            "fewest_stuck": round(min(stuck)),
            "stuck_at_timeout": round(littles_law(rate, timeout_ms / 1000)),
            "calls_ok": sum(1 for _, outcome, _ in calls if outcome == "ok"),
            "calls_timed_out": sum(1 for _, outcome, _ in calls if outcome == "timeout"),
            "longest_hold_ms": max(held for _, _, held in calls),
        },
        "series": {
            "wait_s": list(params["waits_s"]),
            "stuck_requests": [round(n) for n in stuck],
        },
        "tables": {
            "calls": table(
                phrase(gettext_noop("Each call, with a %(ms)s ms timeout"), ms=num(timeout_ms)),
                [
                    gettext_noop("service answers after"),
                    gettext_noop("outcome"),
                    gettext_noop("caller held for"),
                ],
                [
                    [f"{num(lat)} ms", OUTCOME_WORDS[outcome], f"{num(held)} ms"]
                    for lat, outcome, held in calls
                ],
            ),
            "held": {
                "latency_ms": [lat for lat, _, _ in calls],
                "outcome": [outcome for _, outcome, _ in calls],
                "held_ms": [held for _, _, held in calls],
            },
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, series = result["summary"], result["series"]
    timeout_ms = result["params"]["timeout_ms"]
    held = result["tables"]["held"]
    lines = [
        gettext(
            "%(rate)s requests a second, each waiting up to %(wait)s s: "
            "%(n)s requests stuck at once."
        )
        % {"rate": num(s["rate_per_s"]), "wait": num(wait), "n": num(n)}
        for wait, n in zip(series["wait_s"], series["stuck_requests"], strict=True)
    ]
    calls = [
        (gettext("%(ms)s ms → ok") if outcome == "ok" else gettext("%(ms)s ms → timeout"))
        % {"ms": num(lat)}
        for lat, outcome in zip(held["latency_ms"], held["outcome"], strict=True)
    ]
    lines.append(
        gettext("With a %(ms)s ms timeout: %(calls)s.")
        % {"ms": num(timeout_ms), "calls": " · ".join(calls)}
    )
    lines.append(
        gettext("No caller waits more than %(ms)s ms, so at most %(n)s requests are stuck at once.")
        % {"ms": num(s["longest_hold_ms"]), "n": num(s["stuck_at_timeout"])}
    )
    return lines


FIGURES = (
    Figure("rate_per_s", gettext_noop("Requests per second"), "float", gettext_noop("req/s")),
    Figure(
        "most_stuck",
        gettext_noop("Most requests stuck (longest wait)"),
        "float",
        gettext_noop("requests"),
    ),
    Figure(
        "fewest_stuck",
        gettext_noop("Fewest requests stuck (shortest wait)"),
        "float",
        gettext_noop("requests"),
    ),
    Figure(
        "stuck_at_timeout",
        gettext_noop("Requests stuck with the chosen timeout"),
        "float",
        gettext_noop("requests"),
    ),
    Figure("calls_ok", gettext_noop("Calls answered in time"), "int", gettext_noop("calls")),
    Figure(
        "calls_timed_out", gettext_noop("Calls cut by the timeout"), "int", gettext_noop("calls")
    ),
    Figure(
        "longest_hold_ms", gettext_noop("Longest a caller was held"), "float", gettext_noop("ms")
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
