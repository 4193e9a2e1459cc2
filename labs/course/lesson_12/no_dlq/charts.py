"""Charts for the no-DLQ lab: the good messages' backlog, and what the poison costs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, PALETTE, figure, line, right_axis, vline
from labs.text import gettext, gettext_noop

DLQ_COLOUR = PALETTE[1]  # the poison-messages lab's DLQ colour


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary, p = result["series"], result["summary"], result["params"]
    x = s["second"]
    shapes, notes = [], []
    if p["poison"]:
        for at, words in _moments(p, summary):
            shape, note = vline(at, words)
            shapes.append(shape)
            notes.append(note)
    backlog = figure(
        title=gettext_noop("Good messages waiting, second by second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("messages"),
        traces=[
            line(
                x,
                s["backlog"],
                gettext_noop("waiting (backlog)"),
                fill=True,
                color=COLORS["backlog"],
            ),
            line(x, s["good_done"], gettext_noop("good messages done"), color=COLORS["done"]),
            line(
                x,
                s["oldest_age_s"],
                gettext_noop("age of the oldest waiting (s)"),
                dash="dot",
                color=GREY,
                yaxis="y2",
            ),
        ],
        shapes=list(shapes),
        annotations=[dict(n) for n in notes],
    )
    right_axis(backlog, gettext_noop("seconds"))
    poison = figure(
        title=gettext_noop("What the poison messages cost"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("messages or receives"),
        traces=[
            line(
                x,
                s["poison_receives"],
                gettext_noop("receives of poison"),
                color=COLORS["retries"],
            ),
            line(x, s["in_dlq"], gettext_noop("in the DLQ"), color=DLQ_COLOUR),
            line(
                x,
                s["poison_worker_s"],
                gettext_noop("workers busy on poison"),
                shape="hv",
                color=COLORS["wasted"],
                yaxis="y2",
            ),
        ],
        shapes=list(shapes),
        annotations=[dict(n) for n in notes],
    )
    # Headroom above the pool's size: a line at the very top read as the chart's frame.
    right_axis(poison, gettext_noop("workers"), y_range=(0, 1.25 * p["workers"]))
    return [backlog, poison]


def _moments(p: Mapping[str, Any], summary: Mapping[str, Any]) -> list[tuple[int, str]]:
    arrive = gettext("%(n)s poison messages arrive") % {"n": p["poison"]}
    moments = [(p["poison_at_s"], arrive)]
    if summary["poison_gone_at_s"] is not None:
        moments.append((summary["poison_gone_at_s"], gettext("the last one is in the DLQ")))
    return moments
