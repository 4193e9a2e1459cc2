"""Charts for the breaker lab: a timeline of calls over the breaker's state, and the comparison."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from typing import Any

from labs.charts.base import (
    BLUE,
    FAILED,
    FAINT,
    FAST_FAIL,
    OK,
    OUTCOME_COLOURS,
    band,
    bar,
    figure,
    markers,
)
from labs.text import gettext, gettext_noop

STATE_COLOURS = {"closed": FAINT, "open": FAST_FAIL, "half-open": BLUE}
LANES = {"service": 0, "breaker": 1, "calls": 2}
# Each lane's name on the axis (breaker stays a Latin word in both languages, like the lesson).
LANE_WORDS = {
    "service": gettext_noop("service"),
    "breaker": gettext_noop("breaker"),
    "calls": gettext_noop("calls"),
}
# A call's outcome in words (the series keeps the key); the service lane says up or down.
OUTCOME_WORDS = {
    "ok": gettext_noop("ok"),
    "failed": gettext_noop("failed"),
    "fast-fail": gettext_noop("fast-fail"),
}
SERVICE_WORDS = (gettext_noop("up"), gettext_noop("down"))


def timeline(result: Mapping[str, Any]) -> dict[str, Any]:
    s = result["series"]
    seconds = s["second"]
    traces = []
    for outcome, colour in OUTCOME_COLOURS.items():
        picked = [i for i, o in enumerate(s["outcome"]) if o == outcome]
        traces.append(
            markers(
                [seconds[i] for i in picked],
                [LANES["calls"]] * len(picked),
                OUTCOME_WORDS[outcome],
                color=colour,
                symbol=["diamond" if s["trial"][i] else "circle" for i in picked],
                text=[
                    (
                        gettext("second %(s)s: %(outcome)s (trial call)")
                        if s["trial"][i]
                        else gettext("second %(s)s: %(outcome)s")
                    )
                    % {"s": seconds[i], "outcome": gettext(OUTCOME_WORDS[outcome])}
                    for i in picked
                ],
            )
        )
    shapes, notes = [], []
    # One band per stretch of seconds in the same state, from that second to the next.
    position = 0
    for state, stretch in groupby(s["breaker"]):
        length = len(list(stretch))
        x0, x1 = position - 0.5, position + length - 0.5
        shapes.append(band(x0, x1, 0.7, 1.3, STATE_COLOURS[state], opacity=0.6))
        if length >= 3:
            notes.append(_label(x0, x1, LANES["breaker"], state))
        position += length
    position = 0
    for healthy, stretch in groupby(s["dependency_ok"]):
        length = len(list(stretch))
        x0, x1 = position - 0.5, position + length - 0.5
        shapes.append(band(x0, x1, -0.3, 0.3, OK if healthy else FAILED, opacity=0.35))
        notes.append(
            _label(
                x0,
                x1,
                LANES["service"],
                gettext("up") if healthy else gettext("down"),
            )
        )
        position += length
    fig = figure(
        title=gettext_noop(
            "Calls (◆ = trial call), the breaker's state and the service, second by second"
        ),
        x_title=gettext_noop("second"),
        y_title="",
        traces=traces,
        shapes=shapes,
        annotations=notes,
        y_ticks=(list(LANES.values()), [gettext(LANE_WORDS[lane]) for lane in LANES]),
        y_range=(-0.6, 2.6),
        height=320,
        hovermode="closest",
    )
    fig["layout"]["xaxis"]["zeroline"] = False
    fig["layout"]["yaxis"]["zeroline"] = False
    return fig


def _label(x0: float, x1: float, y: float, text: str) -> dict[str, Any]:
    """A stretch's word, centred on it; the first stretch's starts at its left end, or on a
    phone it ran left past the axis onto the lane's name."""
    note = {"x": (x0 + x1) / 2, "y": y, "xref": "x", "yref": "y", "text": text}
    if x0 < 0:
        note.update(x=x0, xanchor="left")
    return {**note, "showarrow": False}


def comparison(result: Mapping[str, Any]) -> dict[str, Any]:
    data = result["tables"]["compare_data"]
    labels = [
        gettext("%(setting)s<br>first ok %(when)s")
        % {
            "setting": label
            if "fails" not in data  # a result saved before the settings were numbers
            else gettext("%(fails)s fails, open %(open)s s") % {"fails": fails, "open": open_s},
            "when": gettext("never") if first is None else f"{first} s",
        }
        for label, first, fails, open_s in zip(
            data["label"],
            data["first_ok_s"],
            data.get("fails", data["label"]),
            data.get("open_s", data["label"]),
            strict=True,
        )
    ]
    return figure(
        title=gettext_noop("Calls by outcome for each breaker setting"),
        x_title="",  # each group names its setting; a title here sat on the turned words
        y_title=gettext_noop("calls"),
        traces=[
            bar(
                labels,
                data["failed"],
                gettext_noop("reached the sick service"),
                color=FAILED,
                text=data["failed"],
            ),
            bar(
                labels,
                data["fast_fail"],
                gettext_noop("failed fast"),
                color=FAST_FAIL,
                text=data["fast_fail"],
            ),
            bar(labels, data["ok"], gettext_noop("ok"), color=OK, text=data["ok"]),
        ],
        barmode="stack",
        x_category=True,
        hovermode="x unified",
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [timeline(result), comparison(result)]
