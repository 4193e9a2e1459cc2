"""Charts for the poison-message lab: every receive in order, and receives per setting."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, PURPLE, bar, figure, markers
from labs.text import gettext, gettext_noop

OUTCOMES = {
    "done": (gettext_noop("made"), OK),
    "retry": (gettext_noop("failed, back in the queue"), FAILED),
}
DLQ_COLOUR = PURPLE


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary = result["series"], result["summary"]
    traces = []
    for outcome, (label, colour) in {
        **OUTCOMES,
        "dlq": (gettext_noop("failed, moved to the DLQ"), DLQ_COLOUR),
    }.items():
        picked = [i for i, o in enumerate(s["outcome"]) if o == outcome]
        traces.append(
            markers(
                [s["receive"][i] for i in picked],
                [s["message"][i] for i in picked],
                label,
                color=colour,
                symbol="x" if outcome == "dlq" else "circle",
                size=12,
                text=[
                    gettext("receive %(n)s: %(message)s, its receive %(count)s")
                    % {
                        "n": s["receive"][i],
                        "message": s["message"][i],
                        "count": s["receive_count"][i],
                    }
                    for i in picked
                ],
            )
        )
    log = figure(
        title=gettext("Every receive with maxReceiveCount %(n)s") % {"n": summary["max_receives"]},
        x_title=gettext_noop("receive number"),
        y_title=gettext_noop("message"),
        traces=traces,
        height=360,
        hovermode="closest",
    )
    log["layout"]["yaxis"]["type"] = "category"
    log["layout"]["yaxis"]["categoryorder"] = "array"
    log["layout"]["yaxis"]["categoryarray"] = sorted(set(s["message"]), key=_number)
    data = result["tables"]["compare_data"]
    labels = [gettext("max %(n)s") % {"n": n} for n in data["max_receives"]]
    wasted = [r - m for r, m in zip(data["receives"], data["made"], strict=True)]
    compare = figure(
        title=gettext_noop("Receives for each maxReceiveCount"),
        x_title=gettext_noop("maxReceiveCount"),
        y_title=gettext_noop("receives"),
        traces=[
            bar(labels, data["made"], gettext_noop("receives that made a PDF"), color=OK),
            bar(labels, wasted, gettext_noop("receives spent on poison"), color=GREY),
        ],
        barmode="stack",
        x_category=True,
        height=300,
    )
    return [log, compare]


def _number(message: str) -> int:
    return int(message.rsplit("-", 1)[1])
