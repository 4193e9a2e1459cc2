"""Charts for the drain lab: the backlog over time, with arrivals, work done and workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    jobs = figure(
        title=f"Jobs per second — {result.get('tables', {}).get('rule', '')}",
        x_title="second",
        y_title="jobs",
        traces=[
            line(x, s["arrived"], "arrived", dash="dot", color=COLORS["arrived"]),
            line(x, s["done"], "done", color=COLORS["done"]),
            line(x, s["backlog"], "waiting (backlog)", fill=True, color=COLORS["backlog"]),
        ],
    )
    workers = figure(
        title="Workers running",
        x_title="second",
        y_title="workers",
        traces=[line(x, s["workers"], "workers", shape="hv", color=COLORS["workers"])],
        height=260,
    )
    return [jobs, workers]
