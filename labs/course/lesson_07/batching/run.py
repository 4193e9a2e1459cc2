"""Lesson 07's fan-out in batches, with a provider that throttles, as a lab."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.batching import fan_out
from labs.text import gettext, gettext_noop, num

PARAMS = (
    Param(
        "messages",
        gettext_noop("Messages to send"),
        "int",
        5_000_000,
        gettext_noop("One SMS for every parent."),
        min=1,
        max=100_000_000,
        group=gettext_noop("The work"),
    ),
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        50,
        gettext_noop("Each sends one call at a time to the provider."),
        min=1,
        max=10_000,
        group=gettext_noop("The work"),
    ),
    Param(
        "batch",
        gettext_noop("Messages per call (batch size)"),
        "int",
        1,
        gettext_noop("1 sends each message on its own."),
        min=1,
        max=10_000,
        group=gettext_noop("The work"),
    ),
    Param(
        "call_ms",
        gettext_noop("Time of a call with one message"),
        "float",
        20.0,
        gettext_noop("Mostly the round trip to the provider."),
        min=0.1,
        max=10_000,
        group=gettext_noop("The provider"),
        unit="ms",
    ),
    Param(
        "per_message_ms",
        gettext_noop("Time each further message adds to a call"),
        "float",
        0.1,
        gettext_noop("Small next to the round trip."),
        min=0,
        max=1_000,
        group=gettext_noop("The provider"),
        unit="ms",
    ),
    Param(
        "limit_per_s",
        gettext_noop("Messages the provider accepts per second"),
        "float",
        10_000.0,
        gettext_noop("Above this the provider refuses (throttles) whatever more the workers send."),
        min=1,
        max=10_000_000,
        group=gettext_noop("The provider"),
        unit="/s",
    ),
)

SWEEP_POINTS = 40


def _fan_out(params: Mapping[str, Any], workers: int, batch: int):
    return fan_out(
        params["messages"],
        workers,
        batch,
        params["call_ms"],
        params["per_message_ms"],
        params["limit_per_s"],
    )


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The chosen fan-out, and the time for each worker count, one at a time and batched."""
    chosen = _fan_out(params, params["workers"], params["batch"])
    top = max(4 * params["workers"], 10)
    counts = sorted({max(1, round(top * i / SWEEP_POINTS)) for i in range(1, SWEEP_POINTS + 1)})
    progress.update(1, 1)
    return {
        "summary": {
            "per_worker_per_s": round(chosen.per_worker_per_s, 2),
            "sent_per_s": round(chosen.sent_per_s, 2),
            "minutes": round(chosen.minutes, 2),
            "calls": chosen.calls,
            "throttled": chosen.throttled,
            "useful_workers": round(chosen.useful_workers, 2),
        },
        "series": {
            "workers": counts,
            "minutes_single": [round(_fan_out(params, w, 1).minutes, 3) for w in counts],
            "minutes_batched": [
                round(_fan_out(params, w, params["batch"]).minutes, 3) for w in counts
            ],
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "workers": num(p["workers"]),
        "batch": num(p["batch"]),
        "rate": num(s["per_worker_per_s"]),
        "sent": num(s["sent_per_s"]),
        "minutes": num(round(s["minutes"], 1)),
        "calls": num(s["calls"]),
        "limit": num(p["limit_per_s"]),
        "useful": num(round(s["useful_workers"], 1)),
    }
    lines = [
        gettext(
            "%(workers)s workers × %(rate)s messages a second each (%(batch)s per call): "
            "all sent in %(minutes)s minutes, with %(calls)s calls to the provider."
        )
        % values
    ]
    if s["throttled"]:
        lines.append(
            gettext(
                "The provider takes only %(limit)s a second: it throttles the rest, so "
                "%(useful)s workers would send as fast as %(workers)s do."
            )
            % values
        )
    else:
        lines.append(gettext("The provider accepts all %(sent)s a second.") % values)
    return lines


FIGURES = (
    Figure("per_worker_per_s", gettext_noop("Messages one worker sends per second"), "float", "/s"),
    Figure("sent_per_s", gettext_noop("Messages sent per second"), "float", "/s"),
    Figure("minutes", gettext_noop("Minutes until all are sent"), "float", "min"),
    Figure("calls", gettext_noop("Calls to the provider"), "int"),
    Figure("throttled", gettext_noop("The provider throttles"), "bool"),
    Figure("useful_workers", gettext_noop("Workers the provider's limit keeps busy"), "float"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
