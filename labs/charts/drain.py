"""Charts for the drain lab: the backlog over time, with arrivals, work done and workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    jobs = figure(
        title=f"Jobs per second — {result.get('tables', {}).get('rule', '')}",
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs"),
        traces=[
            line(x, s["arrived"], gettext_noop("arrived"), dash="dot", color=COLORS["arrived"]),
            line(x, s["done"], gettext_noop("done"), color=COLORS["done"]),
            line(
                x,
                s["backlog"],
                gettext_noop("waiting (backlog)"),
                fill=True,
                color=COLORS["backlog"],
            ),
        ],
    )
    workers = figure(
        title=gettext_noop("Workers running"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("workers"),
        traces=[
            line(x, s["workers"], gettext_noop("workers"), shape="hv", color=COLORS["workers"])
        ],
        height=260,
    )
    return [jobs, workers]
