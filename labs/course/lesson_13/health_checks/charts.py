"""Charts for the health checks lab: failed requests and instances in service, second by
second, with shallow checks and with deep ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, band, figure, line, vline
from labs.text import gettext


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    x = s["second"]
    shallow, deep = gettext("shallow checks"), gettext("deep checks")
    blip = band(p["db_down_from_s"], p["db_down_until_s"], 0, 105, GREY, opacity=0.2)
    _, blip_note = vline(p["db_down_from_s"], gettext("database down"))
    failed = figure(
        title=gettext("Requests failing each second"),
        x_title=gettext("second"),
        y_title=gettext("failed (%)"),
        traces=[
            line(x, s["shallow_failed_pct"], shallow, color=COLORS["workers"], shape="hv"),
            line(x, s["deep_failed_pct"], deep, color=COLORS["failed"], shape="hv", dash="dot"),
        ],
        shapes=[blip],
        annotations=[blip_note],
        y_range=(0, 105),
    )
    rotation = figure(
        title=gettext("Instances the load balancer sends to"),
        x_title=gettext("second"),
        y_title=gettext("instances"),
        traces=[
            line(x, s["shallow_in_rotation"], shallow, color=COLORS["workers"], shape="hv"),
            line(x, s["deep_in_rotation"], deep, color=COLORS["failed"], shape="hv", dash="dot"),
        ],
        height=280,
    )
    return [failed, rotation]
