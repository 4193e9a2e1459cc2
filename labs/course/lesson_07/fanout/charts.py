"""Charts for the fan-out lab: minutes per worker count, one bar per rate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import bar, figure, hline
from labs.text import gettext, gettext_noop, num


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary = result["series"], result["summary"]
    traces = []
    for rate in dict.fromkeys(s["rate_per_s"]):  # rates in the order given
        picked = [i for i, r in enumerate(s["rate_per_s"]) if r == rate]
        traces.append(
            bar(
                [gettext("%(n)s workers") % {"n": num(s["workers"][i])} for i in picked],
                [s["time_min"][i] for i in picked],
                gettext("%(rate)s jobs/s each") % {"rate": num(rate)},
                text=[f"{s['time_min'][i]:,.1f}" for i in picked],
            )
        )
    deadline, note = hline(
        summary["deadline_min"],
        gettext("deadline %(min)s min") % {"min": num(summary["deadline_min"])},
        y_log=True,
    )
    return [
        figure(
            title=gettext("Minutes to finish %(jobs)s jobs (log scale)")
            % {"jobs": num(summary["jobs"])},
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
