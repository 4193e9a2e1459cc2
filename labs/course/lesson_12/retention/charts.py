"""Charts for the retention lab: the queue's backlog and its oldest message against the
retention period, and the DLQ's depth with what its own retention deleted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, FAILED, GREY, figure, hline, line, vline, window
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    x = s["hour"]
    start, end = p["outage_from_h"], p["outage_from_h"] + p["outage_h"]
    shapes, notes = [], []
    if p["outage_h"] and start < len(x):
        shape, note = window(start, min(end, len(x) - 1), gettext_noop("workers stopped"), GREY)
        shapes, notes = [shape], [note]
    backlog = figure(
        title=gettext_noop("The queue: waiting, and deleted by retention"),
        x_title=gettext_noop("hour"),
        y_title=gettext_noop("messages"),
        traces=[
            line(x, s["backlog"], gettext_noop("waiting"), color=COLORS["backlog"], fill=True),
            line(
                x,
                s["expired"],
                gettext_noop("deleted by retention (total)"),
                color=FAILED,
                shape="hv",
            ),
        ],
        shapes=list(shapes),
        annotations=list(notes),
    )
    keep_shape, keep_note = hline(
        p["source_retention_h"], gettext_noop("the queue's retention"), FAILED
    )
    age = figure(
        title=gettext_noop("Age of the oldest message"),
        x_title=gettext_noop("hour"),
        y_title=gettext_noop("hours"),
        traces=[
            line(x, s["oldest_age_h"], gettext_noop("oldest message"), color=COLORS["backlog"])
        ],
        shapes=[*shapes, keep_shape],
        annotations=[*notes, keep_note],
        height=300,
    )
    # The moments someone looks at the DLQ: a parked message gone before the next one is lost.
    looks = list(range(0, len(x), p["review_every_h"]))[:40]
    look_shapes, look_notes = [], []
    for i, hour in enumerate(looks):
        shape, note = vline(hour, gettext_noop("someone looks") if i == 1 else "", GREY)
        shape["line"]["width"] = 1
        look_shapes.append(shape)
        if i == 1:
            look_notes.append(note)
    dlq = figure(
        title=gettext_noop("The DLQ: parked, and deleted by its retention"),
        x_title=gettext_noop("hour"),
        y_title=gettext_noop("messages"),
        traces=[
            line(
                x, s["dlq_depth"], gettext_noop("in the DLQ"), color=COLORS["workers"], shape="hv"
            ),
            line(
                x,
                s["dlq_expired"],
                gettext_noop("deleted from the DLQ (total)"),
                color=FAILED,
                shape="hv",
            ),
        ],
        shapes=look_shapes,
        annotations=look_notes,
        height=300,
    )
    return [backlog, age, dlq]
