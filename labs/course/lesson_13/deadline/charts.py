"""Chart for the deadline lab: each try as a bar of the caller's wait, beside the service's
work on it, with the total deadline marked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line, vline
from labs.text import gettext


def _segments(starts: list[float], ends: list[float], y: str) -> tuple[list[Any], list[Any]]:
    xs: list[Any] = []
    ys: list[Any] = []
    for start, end in zip(starts, ends, strict=True):
        xs += [start, end, None]
        ys += [y, y, None]
    return xs, ys


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    caller, service = gettext("caller waits"), gettext("service works")
    cx, cy = _segments(s["start_s"], s["caller_end_s"], caller)
    sx, sy = _segments(s["start_s"], s["service_end_s"], service)
    deadline, note = vline(p["deadline_s"], gettext("deadline"))
    timeline = figure(
        title=gettext("Each try: how long the caller waits and how long the service works"),
        x_title=gettext("seconds after the first try"),
        y_title="",
        traces=[
            line(cx, cy, caller, color=COLORS["arrived"], with_markers=True),
            line(sx, sy, service, color=COLORS["wasted"], with_markers=True),
        ],
        shapes=[deadline],
        annotations=[note],
        height=260,
        hovermode="closest",
    )
    timeline["layout"]["yaxis"]["type"] = "category"
    timeline["layout"]["yaxis"]["automargin"] = True  # words on the axis: make room for them
    return [timeline]
