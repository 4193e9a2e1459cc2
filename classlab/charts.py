"""The experiment's charts, drawn from the samples its worker kept (one a second).

Built on the server with `labs.charts.base` like every lab's charts, sent as Plotly JSON;
the projector's live view and the saved run's page show the same figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import (
    BLUE,
    FAILED,
    FAINT,
    FAST_FAIL,
    OK,
    ORANGE,
    PURPLE,
    SLATE,
    TEAL,
    figure,
    right_axis,
    sampled,
)
from labs.text import gettext_noop

Sample = Mapping[str, Any]
TIME = gettext_noop("time since the start (s)")


def storm_figures(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """Scenario 1: arrivals vs retries and goodput; backlog and oldest age; timeouts; breakers."""
    draw = sampled(samples, "t")
    return [
        figure(
            title=gettext_noop("Requests each second: first sends, retries, answered in time"),
            x_title=TIME,
            y_title=gettext_noop("requests per second"),
            traces=[
                draw("original", gettext_noop("first sends"), color=BLUE),
                draw("retry", gettext_noop("retries"), color=ORANGE),
                draw("goodput", gettext_noop("answered in time (goodput)"), color=OK),
                draw("late", gettext_noop("served too late"), color=SLATE, dash="dot"),
            ],
            height=300,
        ),
        figure(
            title=gettext_noop("Waiting line: backlog and the oldest request's age"),
            x_title=TIME,
            y_title=gettext_noop("requests waiting"),
            traces=[
                draw("backlog", gettext_noop("backlog"), color=PURPLE, fill=True),
                {
                    **draw("oldest_ms", gettext_noop("oldest request's age (ms)"), color=ORANGE),
                    "yaxis": "y2",
                },
            ],
            height=300,
        ),
        figure(
            title=gettext_noop("Timeouts, refusals and breakers open across the class"),
            x_title=TIME,
            y_title=gettext_noop("per second / phones"),
            traces=[
                draw("timeouts", gettext_noop("timeouts"), color=FAILED),
                draw("refused", gettext_noop("refused at the door"), color=TEAL),
                draw(
                    "breakers_open", gettext_noop("phones with the breaker open"), color=FAST_FAIL
                ),
                draw(
                    "breakers_closed", gettext_noop("phones with the breaker closed"), color=FAINT
                ),
            ],
            height=300,
        ),
    ]


def jobs_figures(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """Scenario 2: the queue, the jobs in phones' hands, redeliveries and the DLQ."""
    draw = sampled(samples, "t")
    return [
        figure(
            title=gettext_noop("Jobs waiting and jobs in the phones' hands"),
            x_title=TIME,
            y_title=gettext_noop("jobs"),
            traces=[
                draw("visible", gettext_noop("waiting (visible)"), color=PURPLE, fill=True),
                draw("in_flight", gettext_noop("in a phone's hands"), color=BLUE),
            ],
            height=300,
        ),
        figure(
            title=gettext_noop("Redeliveries, the dead-letter queue and payments"),
            x_title=TIME,
            y_title=gettext_noop("jobs (running total)"),
            traces=[
                draw("redeliveries", gettext_noop("delivered again"), color=ORANGE),
                draw("dlq", gettext_noop("in the dead-letter queue"), color=FAILED),
                draw("charged", gettext_noop("payments charged"), color=OK),
                draw("duplicates_caught", gettext_noop("duplicates caught"), color=TEAL),
            ],
            height=300,
        ),
    ]


def build(scenario: str, samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """The figures of a run of `scenario` ('storm' or 'workers'); an age on a right axis."""
    figures = storm_figures(samples) if scenario == "storm" else jobs_figures(samples)
    for fig in figures:
        if any(t.get("yaxis") == "y2" for t in fig["data"]):
            right_axis(fig, gettext_noop("age (ms)"))
    return figures
