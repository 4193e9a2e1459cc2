"""Charts for a read answered directly or through a queue: the user's wait, and its parts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, OK, PALETTE, bar, figure, line
from labs.text import gettext, gettext_noop

DIRECT = OK
QUEUED = COLORS["backlog"]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    waits = figure(
        title=gettext_noop("How long the user waited for a read, by the second it was asked"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("ms"),
        traces=[
            line(x, s["direct_mean_ms"], gettext_noop("answered directly: average"), color=DIRECT),
            line(
                x,
                s["direct_worst_ms"],
                gettext_noop("answered directly: longest"),
                color=DIRECT,
                dash="dot",
            ),
            line(x, s["queued_mean_ms"], gettext_noop("through the queue: average"), color=QUEUED),
            line(
                x,
                s["queued_worst_ms"],
                gettext_noop("through the queue: longest"),
                color=QUEUED,
                dash="dot",
            ),
        ],
        height=320,
    )
    return [waits, _parts(result)]


def _parts(result: Mapping[str, Any]) -> dict[str, Any]:
    """The average wait both ways, stacked from what it is made of."""
    summary, p = result["summary"], result["params"]
    ways = [gettext("answered directly"), gettext("through the queue")]
    parts = (
        (gettext_noop("putting the job on the queue"), [0, p["enqueue_ms"]], PALETTE[0]),
        (
            gettext_noop("waiting for a thread or a worker"),
            [summary["direct_for_thread_ms"], summary["queued_for_worker_ms"]],
            GREY,
        ),
        (gettext_noop("the read"), [p["read_ms"], p["read_ms"]], DIRECT),
        (gettext_noop("storing the answer"), [0, p["store_ms"]], PALETTE[1]),
        (
            gettext_noop("waiting for the page's next ask"),
            [0, summary["queued_for_ask_ms"]],
            QUEUED,
        ),
    )
    return figure(
        title=gettext_noop("Where the average wait goes"),
        x_title="",
        y_title=gettext_noop("ms"),
        traces=[bar(ways, values, name, color=colour) for name, values, colour in parts],
        barmode="stack",
        x_category=True,
        height=320,
        hovermode="closest",
    )
