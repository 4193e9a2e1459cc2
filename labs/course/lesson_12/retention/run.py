"""Lesson 12's retention as a lab: a backlog older than the retention period, and a DLQ that
must keep messages longer than its source."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.retention import DEFAULT_RETENTION_H, MAX_RETENTION_H, simulate
from labs.text import gettext, gettext_noop, num, num_or_dash

HOUR = gettext_noop("h")


def _hours(name: str, label: str, default: int, help_text: str, low: int, high: int, group: str):
    return Param(name, label, "int", default, help_text, min=low, max=high, group=group, unit=HOUR)


PARAMS = (
    Param(
        "arrivals_per_h",
        gettext_noop("Messages arriving each hour"),
        "int",
        100,
        gettext_noop("Certificate requests, all day and night."),
        min=0,
        max=100_000,
        group=gettext_noop("The work"),
    ),
    Param(
        "capacity_per_h",
        gettext_noop("Messages the workers finish each hour"),
        "int",
        300,
        gettext_noop("When they are running."),
        min=0,
        max=1_000_000,
        group=gettext_noop("The work"),
    ),
    Param(
        "poison_every",
        gettext_noop("One poison message in every"),
        "int",
        100,
        gettext_noop("These fail every receive and are parked in the DLQ."),
        min=1,
        max=100_000,
        group=gettext_noop("The work"),
    ),
    _hours(
        "outage_from_h",
        gettext_noop("Workers stop at hour"),
        24,
        gettext_noop("A bug in a deploy stops every worker."),
        0,
        720,
        gettext_noop("The outage"),
    ),
    _hours(
        "outage_h",
        gettext_noop("Workers stay stopped for"),
        72,
        gettext_noop("72 hours is a long weekend."),
        0,
        720,
        gettext_noop("The outage"),
    ),
    _hours(
        "source_retention_h",
        gettext_noop("Retention of the queue"),
        DEFAULT_RETENTION_H,
        gettext_noop(
            "SQS keeps a message 4 days (96 hours) unless you change it; at most 14 days."
        ),
        1,
        MAX_RETENTION_H,
        gettext_noop("Retention"),
    ),
    _hours(
        "dlq_retention_h",
        gettext_noop("Retention of the DLQ"),
        MAX_RETENTION_H,
        gettext_noop("336 hours is 14 days, the most SQS keeps a message."),
        1,
        MAX_RETENTION_H,
        gettext_noop("Retention"),
    ),
    Param(
        "queue_type",
        gettext_noop("Queue type"),
        "choice",
        "standard",
        gettext_noop(
            "A standard queue's DLQ counts from the first enqueue; a FIFO queue's from the move."
        ),
        choices=(("standard", gettext_noop("Standard")), ("fifo", gettext_noop("FIFO"))),
        group=gettext_noop("Retention"),
    ),
    _hours(
        "review_every_h",
        gettext_noop("Someone looks at the DLQ every"),
        48,
        gettext_noop("The first look is at hour 0."),
        1,
        720,
        gettext_noop("Retention"),
    ),
    Param(
        "days",
        gettext_noop("Days to watch"),
        "int",
        10,
        gettext_noop("The length of the timeline."),
        min=1,
        max=30,
        group=gettext_noop("The outage"),
        unit=gettext_noop("days"),
    ),
)


def _simulate(params: Mapping[str, Any]):
    return simulate(
        arrivals_per_h=params["arrivals_per_h"],
        capacity_per_h=params["capacity_per_h"],
        outage_from_h=params["outage_from_h"],
        outage_h=params["outage_h"],
        source_retention_h=params["source_retention_h"],
        dlq_retention_h=params["dlq_retention_h"],
        poison_every=params["poison_every"],
        review_every_h=params["review_every_h"],
        horizon_h=params["days"] * 24,
        fifo=params["queue_type"] == "fifo",
    )


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """One timeline, hour by hour: the source queue, its retention and its DLQ."""
    result = _simulate(params)
    progress.update(1, 1)
    hours = result.hours
    return {
        "summary": {
            "sent": result.sent,
            "done": result.done,
            "expired": result.expired,
            "peak_backlog": max(h.backlog for h in hours),
            "oldest_age_max_h": max(h.oldest_age_h for h in hours),
            "parked": result.parked_total,
            "parked_unseen": result.parked_unseen,
            "least_left_in_dlq_h": result.least_left_in_dlq_h,
            "dlq_keeps_longer": params["dlq_retention_h"] > params["source_retention_h"],
        },
        "series": {
            "hour": [h.hour for h in hours],
            "backlog": [h.backlog for h in hours],
            "oldest_age_h": [h.oldest_age_h for h in hours],
            "done": [h.done for h in hours],
            "expired": [h.expired for h in hours],
            "dlq_depth": [h.dlq_depth for h in hours],
            "dlq_expired": [h.dlq_expired for h in hours],
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "sent": num(s["sent"]),
        "outage": num(p["outage_h"]),
        "age": num(s["oldest_age_max_h"]),
        "keep": num(p["source_retention_h"]),
        "expired": num(s["expired"]),
        "parked": num(s["parked"]),
        "least": num_or_dash(s["least_left_in_dlq_h"]),
        "dlq": num(p["dlq_retention_h"]),
        "unseen": num(s["parked_unseen"]),
        "review": num(p["review_every_h"]),
    }
    lines = [
        gettext(
            "%(sent)s messages sent; the workers stopped for %(outage)s hours and the oldest "
            "message waited up to %(age)s hours."
        )
        % values,
        gettext("Retention (%(keep)s hours) deleted %(expired)s messages that no worker ever saw.")
        % values
        if s["expired"]
        else gettext(
            "Nothing expired: no message waited as long as the retention (%(keep)s hours)."
        )
        % values,
    ]
    if s["parked"]:
        lines.append(
            gettext(
                "%(parked)s poison messages were parked; the shortest stay any of them had in "
                "the DLQ was %(least)s hours of its %(dlq)s."
            )
            % values
        )
        lines.append(
            gettext(
                "%(unseen)s of them were deleted from the DLQ before anyone looked (a look "
                "every %(review)s hours)."
            )
            % values
            if s["parked_unseen"]
            else gettext("Every parked message was still in the DLQ when someone looked.")
        )
    if not s["dlq_keeps_longer"]:
        lines.append(
            gettext(
                "The DLQ keeps messages no longer than its queue does: give it a longer "
                "retention (up to 14 days)."
            )
        )
    return lines


FIGURES = (
    Figure("sent", gettext_noop("Messages sent"), "int", gettext_noop("messages")),
    Figure("done", gettext_noop("Messages done"), "int", gettext_noop("messages")),
    Figure(
        "expired",
        gettext_noop("Deleted by the queue's retention, never done"),
        "int",
        gettext_noop("messages"),
    ),
    Figure("peak_backlog", gettext_noop("Peak backlog"), "int", gettext_noop("messages")),
    Figure("oldest_age_max_h", gettext_noop("Longest wait of the oldest message"), "int", HOUR),
    Figure("parked", gettext_noop("Parked in the DLQ"), "int", gettext_noop("messages")),
    Figure(
        "parked_unseen",
        gettext_noop("Deleted from the DLQ before anyone looked"),
        "int",
        gettext_noop("messages"),
    ),
    Figure(
        "least_left_in_dlq_h",
        gettext_noop("Shortest stay of a parked message in the DLQ"),
        "int",
        HOUR,
        True,
    ),
    Figure(
        "dlq_keeps_longer", gettext_noop("The DLQ keeps messages longer than its queue"), "bool"
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
