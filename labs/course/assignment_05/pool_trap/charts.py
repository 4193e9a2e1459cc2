"""Charts for the pool-trap lab: what the connections did each second without a control and
with one, the line waiting for a connection, and how long its oldest request had waited."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, GREY, band, figure, hline, line, stacked, vline
from labs.text import gettext_noop


def _outcomes(s: Mapping[str, Any], p: Mapping[str, Any], key: str, title: str) -> dict[str, Any]:
    x = s["second"]
    top = max(max(s[f"{key}_new_calls"]) + max(s[f"{key}_retries"]), 1)
    shapes = [band(p["slow_from_s"], p["slow_until_s"], 0, top, GREY, opacity=0.15)]
    notes = []
    if key == "control" and p["control"] != "none" and p["switch_at_s"] < p["horizon_s"]:
        switch, note = vline(p["switch_at_s"], gettext_noop("control on"))
        shapes.append(switch)
        notes.append(note)
    return figure(
        title=title,
        x_title=gettext_noop("second"),
        y_title=gettext_noop("per second"),
        traces=[
            stacked(
                line(x, s[f"{key}_useful"], gettext_noop("answered in time"), color=COLORS["ok"]),
                "done",
            ),
            stacked(
                line(
                    x, s[f"{key}_wasted"], gettext_noop("answered too late"), color=COLORS["wasted"]
                ),
                "done",
            ),
            line(
                x,
                s[f"{key}_new_calls"],
                gettext_noop("new calls"),
                color=COLORS["arrived"],
                dash="dot",
            ),
            line(
                x,
                s[f"{key}_retries"],
                gettext_noop("retries"),
                color=COLORS["retries"],
                dash="dash",
            ),
        ],
        shapes=shapes,
        annotations=notes,
        height=340,
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    x = s["second"]
    plain = _outcomes(s, p, "plain", gettext_noop("Without a control: what the connections did"))
    controlled = _outcomes(
        s, p, "control", gettext_noop("With the control: what the connections did")
    )
    waiting = figure(
        title=gettext_noop("Requests waiting for a connection"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests"),
        traces=[
            line(x, s["plain_waiting"], gettext_noop("without a control"), color=COLORS["failed"]),
            line(
                x,
                s["control_waiting"],
                gettext_noop("with the control"),
                color=COLORS["ok"],
                dash="dash",
            ),
        ],
        height=300,
    )
    timeout, note = hline(p["client_timeout_ms"] / 1000, gettext_noop("caller's timeout"))
    oldest = figure(
        title=gettext_noop("How long the oldest request in line had waited"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("seconds"),
        traces=[
            line(
                x,
                s["plain_oldest_wait_s"],
                gettext_noop("without a control"),
                color=COLORS["failed"],
            ),
            line(
                x,
                s["control_oldest_wait_s"],
                gettext_noop("with the control"),
                color=COLORS["ok"],
                dash="dash",
            ),
        ],
        shapes=[timeout],
        annotations=[note],
        height=300,
    )
    return [plain, controlled, waiting, oldest]
