"""Charts for the target-tracking lab: the backlog, the pool and the oldest message's age
under each worker policy, with the acceptable wait drawn across the last."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, figure, hline, line
from labs.text import gettext_noop

# The worker policy → (legend, colour, dash): CPU in grey, as the mistake the lesson names.
STYLE = {
    "backlog": (gettext_noop("workers on backlog per instance"), COLORS["ok"], None),
    "cpu": (gettext_noop("workers on CPU"), GREY, "dot"),
}


def _lines(s: Mapping[str, Any], key: str, shape: str = "linear") -> list[dict[str, Any]]:
    return [
        line(s["second"], s[f"by_{metric}_{key}"], name, color=color, dash=dash, shape=shape)
        for metric, (name, color, dash) in STYLE.items()
    ]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    backlog = figure(
        title=gettext_noop("Messages waiting at the end of each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("messages waiting"),
        traces=_lines(s, "backlog"),
    )
    workers = figure(
        title=gettext_noop("Workers each policy runs, and the API's copies"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("copies"),
        traces=[
            *_lines(s, "workers", shape="hv"),
            line(
                s["second"],
                s["api_instances"],
                gettext_noop("API copies (on CPU)"),
                color=COLORS["arrived"],
                dash="dash",
                shape="hv",
            ),
        ],
        height=300,
    )
    wait, wait_note = hline(p["acceptable_latency_s"], gettext_noop("acceptable wait"))
    age = figure(
        title=gettext_noop("How long the oldest waiting message had waited"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("s"),
        traces=_lines(s, "oldest_age_s", shape="hv"),
        shapes=[wait],
        annotations=[wait_note],
        height=300,
    )
    return [backlog, workers, age]
