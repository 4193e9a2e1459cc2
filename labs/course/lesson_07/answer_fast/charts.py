"""Charts for answer-fast: how long teachers waited, which posts failed, when texts went out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, PALETTE, bar, figure, line, window
from labs.text import gettext_noop

INSIDE = gettext_noop("inside the request")
QUEUED = gettext_noop("queued")
INSIDE_COLOUR, QUEUED_COLOUR = PALETTE[2], PALETTE[0]


def _trouble(result: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    p = result["params"]
    if p["trouble"] == "none":
        return [], []
    label = (
        gettext_noop("provider down") if p["trouble"] == "down" else gettext_noop("provider slow")
    )
    shape, note = window(p["down_from_s"], p["down_until_s"], label)
    return [shape], [note]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    shapes, notes = _trouble(result)
    answers = figure(
        title=gettext_noop("How long a teacher waited for the answer to a post"),
        x_title=gettext_noop("second the notice was posted"),
        y_title=gettext_noop("slowest answer (ms)"),
        traces=[
            line(x, s["request_worst_ms"], INSIDE, color=INSIDE_COLOUR),
            line(x, s["queue_worst_ms"], QUEUED, color=QUEUED_COLOUR),
        ],
        y_log=True,
        y_ticks=([10, 100, 1_000, 10_000, 30_000], ["10", "100", "1,000", "10,000", "30,000"]),
        shapes=shapes,
        annotations=notes,
        height=320,
    )
    shapes, notes = _trouble(result)
    failures = figure(
        title=gettext_noop("Posts answered with an error each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("posts"),
        traces=[
            bar(x, s["request_failed"], INSIDE, color=FAILED),
            bar(x, s["queue_failed"], QUEUED, color=GREY),
        ],
        shapes=shapes,
        annotations=notes,
        height=280,
    )
    shapes, notes = _trouble(result)
    texts = figure(
        title=gettext_noop("Texts that reached the provider each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("texts"),
        traces=[
            line(x, s["request_texts"], INSIDE, color=INSIDE_COLOUR),
            line(x, s["queue_texts"], QUEUED, color=OK),
        ],
        shapes=shapes,
        annotations=notes,
        height=280,
    )
    return [answers, failures, texts]
