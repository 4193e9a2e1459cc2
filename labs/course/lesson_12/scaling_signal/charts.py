"""Charts for the scaling-signal lab: the backlog and the pool under each of the four
scalers, and the CPU the CPU scaler sees against its target."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, PALETTE, figure, hline, line
from labs.text import gettext_noop

# The scaler's signal → (legend, colour, dash): CPU in grey, as the untreated case.
STYLE = {
    "cpu": (gettext_noop("on CPU"), GREY, "dot"),
    "depth": (gettext_noop("on a queue-depth alarm"), PALETTE[0], None),
    "per_worker": (gettext_noop("on backlog per worker"), COLORS["ok"], None),
    "age": (gettext_noop("on the oldest message's age"), PALETTE[1], "dash"),
}


def _lines(s: Mapping[str, Any], key: str, shape: str = "linear") -> list[dict[str, Any]]:
    return [
        line(s["second"], s[f"{signal}_{key}"], name, color=color, dash=dash, shape=shape)
        for signal, (name, color, dash) in STYLE.items()
    ]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    backlog = figure(
        title=gettext_noop("Jobs waiting at the end of each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs waiting"),
        traces=_lines(s, "backlog"),
    )
    workers = figure(
        title=gettext_noop("Workers each scaler runs"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("workers"),
        traces=_lines(s, "workers", shape="hv"),
        height=300,
    )
    target, note = hline(p["cpu_target_pct"], gettext_noop("CPU target"))
    cpu = figure(
        title=gettext_noop("CPU the CPU scaler sees"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("CPU (%)"),
        traces=[
            line(
                s["second"],
                s["cpu_pct"],
                gettext_noop("pool CPU"),
                color=COLORS["workers"],
                shape="hv",
            )
        ],
        shapes=[target],
        annotations=[note],
        y_range=(0, 105),
        height=280,
    )
    return [backlog, workers, cpu]
