"""Lesson 13's circuit breaker on a real queue, shared by every worker through Redis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments import outage
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.live import QUEUE_KEYS
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, ngettext, num, phrase

MAX_SENDING_S = 30.0

# How the catalogue runs this lab (declared in `RUNNER` below).
KEEPS_DLQ = True

PARAMS = (
    Param(
        "messages",
        gettext_noop("Fee payments"),
        "int",
        90,
        gettext_noop("Payments sent to the queue at a steady rate."),
        min=1,
        max=1000,
        group=gettext_noop("Payments"),
        limit=phrase(
            gettext_noop(
                "Together with the rate: payments ÷ payments per second (the time they take to "
                "arrive) may be at most %(most)s s."
            ),
            most=num(MAX_SENDING_S),
        ),
    ),
    Param(
        "arrival_rate_per_s",
        gettext_noop("Payments per second"),
        "float",
        30.0,
        gettext_noop("How fast payments arrive."),
        min=1,
        max=200,
        group=gettext_noop("Payments"),
        unit=gettext_noop("/s"),
    ),
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        4,
        gettext_noop(
            "Worker threads; each has its own breaker object, all keep its state in Redis."
        ),
        min=1,
        max=16,
        group=gettext_noop("Payments"),
    ),
    Param(
        "visibility_timeout_s",
        gettext_noop("Visibility timeout"),
        "float",
        0.5,
        gettext_noop("A payment that failed (or failed fast) comes round again after this."),
        min=0.1,
        max=5,
        group=gettext_noop("Payments"),
        unit=gettext_noop("s"),
    ),
    Param(
        "max_receives",
        gettext_noop("maxReceiveCount"),
        "int",
        50,
        gettext_noop("A payment received this many times without success is parked in the DLQ."),
        min=1,
        max=100,
        group=gettext_noop("Payments"),
    ),
    Param(
        "down_from_s",
        gettext_noop("Service down from"),
        "float",
        0.5,
        gettext_noop("Seconds after the first payment when the payments service starts failing."),
        min=0,
        max=20,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
        limit=gettext_noop(
            "It must start while payments still arrive (before payments ÷ rate), or no call "
            "meets it."
        ),
    ),
    Param(
        "down_for_s",
        gettext_noop("Down for"),
        "float",
        1.5,
        gettext_noop("How long every call fails."),
        min=0.1,
        max=20,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "fail_max",
        gettext_noop("Failures in a row before it opens"),
        "int",
        5,
        gettext_noop("The breaker opens for every worker after this many failed calls in a row."),
        min=1,
        max=50,
        group=gettext_noop("Breaker"),
    ),
    Param(
        "reset_timeout_s",
        gettext_noop("Open time"),
        "float",
        0.5,
        gettext_noop("How long the breaker stays open before one trial call (half-open)."),
        min=0.1,
        max=5,
        group=gettext_noop("Breaker"),
        unit=gettext_noop("s"),
    ),
)

LIVE_KEYS = (*QUEUE_KEYS, "breaker_state", "breaker_level", "service_down")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    sending_s = params["messages"] / params["arrival_rate_per_s"]
    if sending_s > MAX_SENDING_S:
        errors["messages"] = gettext(
            "%(n)s payments at %(rate)s/s take %(s)s s to arrive; keep it at most %(most)s s."
        ) % {
            "n": params["messages"],
            "rate": f"{params['arrival_rate_per_s']:g}",
            "s": num(round(sending_s, 1)),
            "most": f"{MAX_SENDING_S:g}",
        }
    elif params["down_from_s"] >= sending_s:
        errors["down_from_s"] = gettext(
            "The outage must start while payments still arrive (before %(s)s s), or no call "
            "meets it."
        ) % {"s": num(round(sending_s, 1))}
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Send the payments through the shared breaker while the service is down for a while."""
    result = outage(
        params["messages"],
        params["workers"],
        params["arrival_rate_per_s"],
        down_from_s=params["down_from_s"],
        down_for_s=params["down_for_s"],
        fail_max=params["fail_max"],
        reset_timeout_s=params["reset_timeout_s"],
        visibility_timeout_s=params["visibility_timeout_s"],
        max_receives=params["max_receives"],
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s = result["summary"]
    timeline = result["tables"]["breaker_timeline"]
    return {
        "summary": {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s),
        "series": result["series"],
        "tables": {
            "changes": table(
                gettext_noop("The breaker's state changes, as the workers made them in Redis"),
                [gettext_noop("at"), gettext_noop("state")],
                [[f"{row['t_s']:.2f} s", row["state"]] for row in timeline],
            ),
            "timeline": timeline,
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        gettext("The payments service was down from %(start)s s to %(end)s s.")
        % {"start": f"{s['down_from_s']:g}", "end": f"{s['down_until_s']:g}"}
        + " "
        + ngettext(
            "The shared breaker opened %(n)s time.",
            "The shared breaker opened %(n)s times.",
            s["opened"],
        )
        % {"n": num(s["opened"])},
        gettext(
            "%(reached)s calls reached the sick service; %(fast)s failed fast without calling it."
        )
        % {"reached": num(s["reached_sick_service"]), "fast": num(s["failed_fast"])},
    ]
    first = s["first_ok_after_recovery_s"]
    lines.append(
        gettext("No call succeeded after the service came back: make the run longer.")
        if first is None
        else gettext(
            "The first payment after the recovery went through %(t)s s after the service was back."
        )
        % {"t": f"{first:.2f}"}
    )
    lines.append(
        gettext(
            "%(made)s of %(sent)s payments charged, %(dlq)s parked in the DLQ; duplicate "
            "charges: %(dup)s. The breaker ended %(state)s."
        )
        % {
            "made": num(s["made"]),
            "sent": num(s["sent"]),
            "dlq": num(s["dlq"]),
            "dup": num(s["duplicate_effects"]),
            "state": s["state_at_end"],  # closed / open / half-open in both languages
        }
    )
    return lines


FIGURES = (
    Figure("messages", gettext_noop("Payments to send"), "int", gettext_noop("messages")),
    Figure("sent", gettext_noop("Payments sent"), "int", gettext_noop("messages")),
    Figure("made", gettext_noop("Payments charged"), "int", gettext_noop("messages")),
    Figure("dlq", gettext_noop("Parked in the DLQ"), "int", gettext_noop("messages")),
    Figure("lost", gettext_noop("Not finished"), "int", gettext_noop("messages")),
    Figure("down_from_s", gettext_noop("Service down from"), "float", gettext_noop("s")),
    Figure("down_until_s", gettext_noop("Service back at"), "float", gettext_noop("s")),
    Figure(
        "reached_sick_service",
        gettext_noop("Calls that reached the sick service"),
        "int",
        gettext_noop("calls"),
    ),
    Figure("failed_fast", gettext_noop("Calls that failed fast"), "int", gettext_noop("calls")),
    Figure("opened", gettext_noop("Times the breaker opened"), "int"),
    Figure(
        "opened_after_failures",
        gettext_noop("Openings after failures in a row"),
        "int",
    ),
    Figure(
        "opened_after_trial",
        gettext_noop("Openings after a failed half-open trial"),
        "int",
    ),
    Figure(
        "half_open_calls",
        gettext_noop("Calls let through while half-open"),
        "int",
        gettext_noop("calls"),
    ),
    Figure(
        "first_ok_after_recovery_s",
        gettext_noop("First success after the recovery"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("state_at_end", gettext_noop("Breaker state at the end"), "str"),
    Figure("receives", gettext_noop("Receives"), "int", gettext_noop("receives")),
    Figure("fees_charged", gettext_noop("Fees charged (effects)"), "int"),
    Figure("duplicate_effects", gettext_noop("Fees charged twice"), "int"),
    *FOOTER_FIGURES,
)


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: the payments arriving, or the outage and one open time after it if it
    ends later (the last payments wait for the service to come back)."""
    sending_s = params["messages"] / params["arrival_rate_per_s"]
    outage_s = params["down_from_s"] + params["down_for_s"] + params["reset_timeout_s"]
    return wall_cost(max(sending_s, outage_s), ("messages", "down_for_s"))


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
