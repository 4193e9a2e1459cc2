"""Charts for the cold cache: where every read went, and the origin's load against its budget."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import (
    BLUE,
    FAILED,
    FAST_FAIL,
    GREY,
    INK,
    OK,
    TEAL,
    figure,
    hline,
    line,
    stacked,
)
from labs.text import gettext, gettext_noop, num

# Hits are the full answer (green), stale a degraded one (amber), 429 a refusal (red).
OUTCOMES = {
    "hit": (gettext_noop("fresh hit"), OK),
    "stale": (gettext_noop("bounded-stale copy"), FAST_FAIL),
    "coalesced": (gettext_noop("joined a fetch on its way"), TEAL),
    "fetched": (gettext_noop("fetched from the origin"), BLUE),
    "rejected": (gettext_noop("fast 429"), FAILED),
}


def reads(result: Mapping[str, Any]) -> dict[str, Any]:
    s = result["series"]
    x = s["second"]
    return figure(
        title=gettext_noop(
            "Every read each second, by what answered it (the parts add up to all reads)"
        ),
        x_title=gettext_noop("second after the restart"),
        y_title=gettext_noop("reads per second"),
        traces=[
            *(
                stacked(line(x, s[name], words, color=colour), "reads")
                for name, (words, colour) in OUTCOMES.items()
            ),
            line(x, s["offered"], gettext_noop("all reads"), color=INK, dash="dot"),
        ],
    )


def origin(result: Mapping[str, Any]) -> dict[str, Any]:
    s, summary, p = result["series"], result["summary"], result["params"]
    x = s["second"]
    shapes, notes = [], []
    capacity, capacity_note = hline(
        summary["origin_capacity_rps"],
        gettext("origin can do %(rate)s/s") % {"rate": num(summary["origin_capacity_rps"])},
        FAILED,
    )
    shapes.append(capacity)
    notes.append(capacity_note)
    if p["origin_budget"]:
        budget, budget_note = hline(
            summary["origin_budget_rps"],
            gettext("budget %(rate)s/s") % {"rate": num(summary["origin_budget_rps"])},
            GREY,
        )
        budget_note["yanchor"] = "top"
        shapes.append(budget)
        notes.append(budget_note)
    return figure(
        title=gettext_noop(
            "Fetches the origin got each second, against its budget and what it can do"
        ),
        x_title=gettext_noop("second after the restart"),
        y_title=gettext_noop("fetches per second"),
        traces=[
            line(x, s["origin_fetches"], gettext_noop("fetches sent to the origin"), color=BLUE),
            # Filled, so it still shows where it equals the fetches above it.
            line(
                x,
                s["background_refreshes"],
                gettext_noop("of them: background refreshes of stale copies"),
                color=TEAL,
                fill=True,
            ),
        ],
        shapes=shapes,
        annotations=notes,
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [reads(result), origin(result)]
