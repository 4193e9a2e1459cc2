"""Charts for standard against FIFO on the real Redis: each student's updates as they were
applied (numbered in the order they were sent), and when each student was done."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import COLORS, FAILED, FAST_FAIL, GREY, OK, bar, figure, markers, sampled
from labs.charts.live import rows
from labs.text import gettext_noop

TITLES = {
    "standard": gettext_noop("Standard queue: updates as they were applied"),
    "fifo": gettext_noop("FIFO queue: updates as they were applied"),
}


def applied(rows: Sequence[Mapping[str, Any]], kind: str) -> dict[str, Any]:
    """One point per applied update at (time, student), labelled with its place in the
    student's sends: red when an earlier one was not yet done; a diamond for a second copy
    (a legend entry of its own says so)."""
    groups = sorted({r["group"] for r in rows}, key=lambda g: int(g.split("-")[1]))
    traces = []
    for name, colour, keep in (
        (gettext_noop("in order"), OK, lambda r: not r["out_of_order"]),
        (gettext_noop("before an earlier update"), FAILED, lambda r: r["out_of_order"]),
    ):
        chosen = [r for r in rows if keep(r)]
        trace = markers(
            [r["t_s"] for r in chosen],
            [r["group"] for r in chosen],
            name,
            color=colour,
            symbol=["diamond" if r["copy"] else "circle" for r in chosen],
            size=12,
            text=[f"{r['group']} #{r['pos']}" for r in chosen],
        )
        trace["mode"] = "markers+text"
        trace["hovertext"] = trace["text"]
        trace["text"] = [str(r["pos"]) for r in chosen]
        trace["textposition"] = "top center"
        traces.append(trace)
    if any(r["copy"] for r in rows):
        # Only the shape tells a copy apart, so the legend names the shape (no point of its own).
        copy = markers([None], [None], gettext_noop("a second copy of an update"), color=GREY)
        copy["marker"].update(symbol="diamond", size=12)
        copy["hoverinfo"] = "skip"
        traces.append(copy)
    fig = figure(
        title=TITLES[kind],
        x_title=gettext_noop("seconds since the run started"),
        y_title="",
        traces=traces,
        height=120 + 45 * max(1, len(groups)),
        hovermode="closest",
    )
    fig["layout"]["yaxis"] = {
        "type": "category",
        "categoryorder": "array",
        "categoryarray": groups[::-1],
        "automargin": True,
        # Room above the top student for the numbers written over its points.
        "range": [-0.5, len(groups) - 0.2],
    }
    return fig


def finished(result: Mapping[str, Any]) -> dict[str, Any]:
    standard = result["tables"]["standard_students"]["rows"]
    fifo = result["tables"]["fifo_students"]["rows"]
    groups = [r[0] for r in fifo]
    return figure(
        title=gettext_noop("When each student's last update was applied"),
        x_title="",
        y_title=gettext_noop("seconds since the run started"),
        traces=[
            bar(groups, [r[4] for r in standard], gettext_noop("standard"), color=FAST_FAIL),
            bar(groups, [r[4] for r in fifo], gettext_noop("FIFO"), color=COLORS["workers"]),
        ],
        barmode="group",
        x_category=True,
        height=320,
    )


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    draw = sampled(samples, "t_s")
    return figure(
        title=gettext_noop("Updates applied, and in the DLQ"),
        x_title=gettext_noop("seconds since the run started"),
        y_title=gettext_noop("messages"),
        traces=[
            draw("standard_done", gettext_noop("applied, standard"), color=FAST_FAIL),
            draw("fifo_done", gettext_noop("applied, FIFO"), color=COLORS["workers"]),
            draw("standard_dlq", gettext_noop("DLQ, standard"), color=FAILED, dash="dot"),
            draw("fifo_dlq", gettext_noop("DLQ, FIFO"), color=FAILED, dash="dash"),
            draw(
                "fifo_blocked_groups",
                gettext_noop("FIFO groups waiting on a message in flight"),
                color=COLORS["backlog"],
                shape="hv",
            ),
        ],
        height=340,
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    tables = result["tables"]
    return [
        applied(tables["standard_done"], "standard"),
        applied(tables["fifo_done"], "fifo"),
        finished(result),
        live_chart(rows(result["series"]), result["params"]),
    ]
