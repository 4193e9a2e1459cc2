"""Charts for the fan-out lab: minutes per worker count, one bar per rate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import bar, figure, hline
from labs.text import gettext_noop, num


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary = result["series"], result["summary"]
    traces = []
    for rate in dict.fromkeys(s["rate_per_s"]):  # rates in the order given
        picked = [i for i, r in enumerate(s["rate_per_s"]) if r == rate]
        traces.append(
            bar(
                [f"{num(s['workers'][i])} workers" for i in picked],
                [s["time_min"][i] for i in picked],
                f"{num(rate)} jobs/s each",
                text=[f"{s['time_min'][i]:,.1f}" for i in picked],
            )
        )
    deadline, note = hline(
        summary["deadline_min"], f"deadline {num(summary['deadline_min'])} min", y_log=True
    )
    return [
        figure(
            title=f"Minutes to finish {num(summary['jobs'])} jobs (log scale)",
            x_title=gettext_noop("workers"),
            y_title=gettext_noop("minutes"),
            traces=traces,
            barmode="group",
            y_log=True,
            x_category=True,
            shapes=[deadline],
            annotations=[note],
            hovermode="closest",
        )
    ]
