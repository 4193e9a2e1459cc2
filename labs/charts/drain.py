"""Charts for the drain lab: the backlog over time, with arrivals, work done and workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import figure, line


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    jobs = figure(
        title=f"Jobs per second — {result.get('tables', {}).get('rule', '')}",
        x_title="second",
        y_title="jobs",
        traces=[
            line(x, s["arrived"], "arrived", dash="dot"),
            line(x, s["done"], "done"),
            line(x, s["backlog"], "waiting (backlog)", fill=True),
        ],
    )
    workers = figure(
        title="Workers running",
        x_title="second",
        y_title="workers",
        traces=[line(x, s["workers"], "workers", shape="hv")],
        height=260,
    )
    return [jobs, workers]
