"""Charts for the drain arithmetic lab: the backlog falling (or rising), and how the drain
time shoots up as arrivals approach the workers' capacity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line, vline
from labs.text import gettext


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    backlog = figure(
        title=gettext("Jobs waiting"),
        x_title=gettext("seconds from now"),
        y_title=gettext("jobs"),
        traces=[
            line(
                s["second"],
                s["backlog"],
                gettext("waiting (backlog)"),
                fill=True,
                color=COLORS["backlog"],
            )
        ],
    )
    sweep = result["tables"]["sweep"]
    capacity_line, capacity_note = vline(p["capacity_per_s"], gettext("capacity"))
    you_line, you_note = vline(p["arrivals_per_s"], gettext("your arrivals"))
    you_note["y"] = 0.78  # below the capacity's label, which may sit at the same x
    drain = figure(
        title=gettext("Time to empty the queue, for each arrival rate"),
        x_title=gettext("new jobs arriving per second"),
        y_title=gettext("seconds (no point: never)"),
        traces=[line(sweep["arrivals_per_s"], sweep["drain_s"], gettext("time to empty"))],
        shapes=[capacity_line, you_line],
        annotations=[capacity_note, you_note],
        y_log=p["backlog"] > 0,  # an empty queue takes 0 s at every rate: no log axis
        height=320,
    )
    return [backlog, drain]
