"""Charts for variable job cost: jobs vs work units waiting, the estimates, and the oldest jobs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import (
    COLORS,
    FAILED,
    GREY,
    OK,
    PURPLE,
    figure,
    line,
    right_axis,
    vline,
    window,
)
from labs.text import gettext, gettext_noop, num

UNITS = PURPLE


def _incident(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return window(
        params["incident_start_s"], params["incident_end_s"], gettext_noop("expensive mix")
    )


def backlog(result: Mapping[str, Any]) -> dict[str, Any]:
    s, summary, p = result["series"], result["summary"], result["params"]
    x = s["second"]
    shape, note = _incident(p)
    shapes, notes = [shape], [note]
    end = p["incident_end_s"]
    for key, words, colour in (
        ("count_estimate_s", gettext_noop("count estimate: %(s)s s"), FAILED),
        ("work_estimate_s", gettext_noop("work-unit estimate: %(s)s s"), GREY),
        ("actual_drain_s", gettext_noop("actually drained: %(s)s s"), OK),
    ):
        if summary[key] is not None and end + summary[key] <= p["horizon_s"]:
            said_ = gettext(words) % {"s": num(round(summary[key]))}
            mark, mark_note = vline(end + summary[key], said_)
            mark["line"]["color"] = colour
            shapes.append(mark)
            notes.append(mark_note)
    # Stagger the labels so that close marks stay readable.
    for i, n in enumerate(notes[1:]):
        n["y"] = 0.92 - 0.08 * i
    fig = figure(
        title=gettext_noop(
            "Jobs waiting (left) and the work they hold (right), with the drain estimates"
        ),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs waiting"),
        traces=[
            line(x, s["backlog_jobs"], gettext_noop("jobs waiting"), color=COLORS["backlog"]),
            line(
                x, s["backlog_units"], gettext_noop("work units waiting"), color=UNITS, yaxis="y2"
            ),
        ],
        shapes=shapes,
        annotations=notes,
    )
    right_axis(fig, gettext_noop("work units"))
    return fig


def ages(result: Mapping[str, Any]) -> dict[str, Any]:
    s, summary, p = result["series"], result["summary"], result["params"]
    x = s["second"]
    shape, note = _incident(p)
    name = summary["oldest_expensive_job"]
    return figure(
        title=(
            gettext(
                "How long the oldest job, and the oldest expensive job, had waited (%(job)s "
                "named at %(t)s s)"
            )
            % {"job": name, "t": num(p["incident_end_s"])}
            if name
            else gettext("How long the oldest job, and the oldest expensive job, had waited")
        ),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("seconds waited"),
        traces=[
            line(x, s["oldest_age_s"], gettext_noop("oldest job"), color=COLORS["backlog"]),
            line(
                x,
                s["oldest_expensive_age_s"],
                gettext_noop("oldest expensive job"),
                color=UNITS,
                dash="dot",
            ),
        ],
        shapes=[shape],
        annotations=[note],
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [backlog(result), ages(result)]
