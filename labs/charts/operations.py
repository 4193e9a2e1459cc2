"""The operations page's charts: the site's own backlog and oldest waiting run, per queue,
over the last hour, drawn like every lab's (Lesson 12's two signals side by side)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import COLORS, PALETTE, figure, line
from labs.text import gettext_noop

QUEUE_COLOURS = (COLORS["backlog"], PALETTE[0])


def steps(xs: Sequence[float], ys: Sequence[Any]) -> tuple[list[float], list[Any]]:
    """The points a step line needs: a value held for an hour is two points, not 3,600
    (the page is fetched over slow school links every 2 s)."""
    keep_x: list[float] = []
    keep_y: list[Any] = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        last = i == len(xs) - 1
        if i == 0 or last or y != ys[i - 1] or y != ys[i + 1]:
            keep_x.append(x)
            keep_y.append(y)
    return keep_x, keep_y


def build(
    samples: Sequence[Mapping[str, Any]], queues: Sequence[tuple[str, str]], now: float
) -> list[dict[str, Any]]:
    """Two figures from the sampler's per-second samples: runs waiting and the oldest
    waiting run's age, one line per queue (`queues`: (name, label)); x in seconds before
    `now`."""
    charts = []
    for index, title, y_title in (
        (0, gettext_noop("Runs waiting for a worker"), gettext_noop("runs waiting")),
        (1, gettext_noop("Oldest waiting run"), gettext_noop("age (s)")),
    ):
        traces = []
        for (queue, label), colour in zip(queues, QUEUE_COLOURS, strict=False):
            xs = [round(s["t"] - now, 1) for s in samples if queue in s["q"]]
            ys = [s["q"][queue][index] or 0 for s in samples if queue in s["q"]]
            x, y = steps(xs, ys)
            traces.append(line(x, y, label, shape="hv", color=colour))
        chart = figure(
            title=title,
            x_title=gettext_noop("seconds before now"),
            y_title=y_title,
            traces=traces,
            height=320,
        )
        if index == 0:  # runs are whole: no tick at 0.2 of a run
            top = max((max(t["y"]) for t in traces if t["y"]), default=0)
            yaxis = chart["layout"]["yaxis"]
            yaxis.update(tick0=0, dtick=whole_step(top), tickformat="d")
            if not top:
                yaxis["range"] = [0, 1]  # an empty queue: the axis 0..1, not -1..1
        charts.append(chart)
    return charts


def whole_step(top: float, most_ticks: int = 6) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50… that puts at most `most_ticks` ticks above 0
    on an axis up to `top`."""
    step = 1
    while top / step > most_ticks:
        for factor in (2, 2.5, 2):  # 1 → 2 → 5 → 10 → 20 …
            step = int(step * factor)
            if top / step <= most_ticks:
                break
    return step
