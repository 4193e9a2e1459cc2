"""Charts for the database-knee lab: the database's curve with its knee, then the queue and
the database's answers over time, scaled on the backlog alone and capped at the knee."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, figure, line, right_axis, vline
from labs.text import gettext_noop

SCALED = (gettext_noop("scaled on the backlog alone"), COLORS["failed"], None)
CAPPED = (gettext_noop("capped workers"), COLORS["ok"], "dash")


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p, c = result["series"], result["params"], result["tables"]["curve"]
    knee, knee_note = vline(p["knee"], gettext_noop("knee"))
    curve = figure(
        title=gettext_noop("What the database answers with more queries at once"),
        x_title=gettext_noop("queries at once"),
        y_title=gettext_noop("queries answered a second"),
        traces=[
            line(
                c["concurrency"],
                c["db_per_s"],
                gettext_noop("answered a second"),
                color=COLORS["done"],
            ),
            line(
                c["concurrency"],
                c["latency_ms"],
                gettext_noop("one query's time (ms)"),
                color=COLORS["backlog"],
                dash="dot",
                yaxis="y2",
            ),
        ],
        shapes=[knee],
        annotations=[knee_note],
    )
    right_axis(curve, gettext_noop("ms"))
    x = s["second"]
    queue = figure(
        title=gettext_noop("Jobs waiting"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs waiting"),
        traces=[
            line(x, s[f"{key}_backlog"], name, color=color, dash=dash)
            for key, (name, color, dash) in (("scaled", SCALED), ("capped", CAPPED))
        ],
    )
    answered = figure(
        title=gettext_noop("Jobs arriving and queries answered each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("per second"),
        traces=[
            line(x, s["arrived"], gettext_noop("arrived"), color=GREY, dash="dot", shape="hv"),
            *(
                line(x, s[f"{key}_done"], name, color=color, dash=dash, shape="hv")
                for key, (name, color, dash) in (("scaled", SCALED), ("capped", CAPPED))
            ),
        ],
        height=320,
    )
    workers = figure(
        title=gettext_noop("Workers running"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("workers"),
        traces=[
            line(x, s[f"{key}_workers"], name, color=color, dash=dash, shape="hv")
            for key, (name, color, dash) in (("scaled", SCALED), ("capped", CAPPED))
        ],
        height=260,
    )
    return [curve, queue, answered, workers]
