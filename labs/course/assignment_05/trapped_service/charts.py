"""Charts for the trapped service: the flows, the backlog and its age, payments, latency."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import (
    BLUE,
    COLORS,
    FAILED,
    FAST_FAIL,
    GREY,
    OK,
    PURPLE,
    SLATE,
    TEAL,
    figure,
    hline,
    line,
    right_axis,
    stacked,
    vline,
    window,
)
from labs.text import gettext, gettext_noop, num
from labs.words.recovery_controls import PAYMENT_WORDS, controls_on

AGE = PURPLE
COMPLETED = SLATE
# Payment states, from "still in the air" to "settled". Red only for lost, the one
# state that must never happen; amber for unknown, which nobody owns.
PAYMENT_COLOURS = {
    "confirmed": OK,
    "reconciled": TEAL,
    "failed": GREY,
    "pending": BLUE,
    "reconciling": AGE,
    "unknown": FAST_FAIL,
    "lost": FAILED,
}


def marks(params: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The trigger window, shaded, and the moment the controls went on."""
    shape, note = window(
        params["trigger_start_s"], params["trigger_end_s"], gettext_noop("trigger")
    )
    shapes, notes = [shape], [note]
    if params["recover_at_s"] < params["horizon_s"]:
        on = bool(controls_on(params))
        at = num(params["recover_at_s"])
        line_shape, line_note = vline(
            params["recover_at_s"],
            (
                gettext("controls on at %(t)s s") % {"t": at}
                if on
                else gettext("controls set for %(t)s s (none switched on)") % {"t": at}
            ),
            color=OK if on else GREY,
        )
        shapes.append(line_shape)
        notes.append(line_note)
    return shapes, notes


def flows(result: Mapping[str, Any]) -> dict[str, Any]:
    s = result["series"]
    x = s["second"]
    shapes, notes = marks(result["params"])
    return figure(
        title=gettext_noop(
            "Each second: new requests, retries, all completions and useful completions"
        ),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests per second"),
        traces=[
            line(x, s["arrivals"], gettext_noop("new requests"), color=COLORS["arrived"]),
            line(x, s["retries"], gettext_noop("retries"), color=COLORS["retries"]),
            line(
                x, s["completions"], gettext_noop("completions (all)"), color=COMPLETED, dash="dot"
            ),
            line(
                x, s["useful"], gettext_noop("useful completions (caller still waiting)"), color=OK
            ),
        ],
        shapes=shapes,
        annotations=notes,
    )


def backlog(result: Mapping[str, Any]) -> dict[str, Any]:
    s, p = result["series"], result["params"]
    x = s["second"]
    shapes, notes = marks(p)
    # Healthy means the oldest request is younger than half the timeout (the model's rule).
    half_timeout_s = p["client_timeout_ms"] / 2000
    level, level_note = hline(
        half_timeout_s,
        gettext("half the timeout (%(t)s s)") % {"t": num(half_timeout_s)},
        AGE,
    )
    level["yref"] = level_note["yref"] = "y2"
    fig = figure(
        title=gettext_noop("Backlog (left) and how long the oldest request has waited (right)"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests waiting or in service"),
        traces=[
            line(x, s["backlog"], gettext_noop("backlog"), color=COLORS["backlog"], fill=True),
            line(
                x,
                s["oldest_age_s"],
                gettext_noop("age of the oldest request (s)"),
                color=AGE,
                yaxis="y2",
            ),
        ],
        shapes=[*shapes, level],
        annotations=[*notes, level_note],
    )
    right_axis(fig, gettext_noop("seconds"))
    return fig


def payments(result: Mapping[str, Any]) -> dict[str, Any]:
    s = result["series"]
    x = s["second"]
    shapes, notes = marks(result["params"])
    return figure(
        title=gettext_noop("Payments by state (every payment is in exactly one)"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("payments"),
        traces=[
            stacked(line(x, s[f"payments_{state}"], words, color=colour), "payments")
            for state, colour in PAYMENT_COLOURS.items()
            for words in [PAYMENT_WORDS[state]]
        ],
        shapes=shapes,
        annotations=notes,
    )


def latency(result: Mapping[str, Any]) -> dict[str, Any]:
    """How long answered callers waited, each second: p50 and p99, the attempt and the call."""
    s, p = result["series"], result["params"]
    x = s["second"]
    shapes, notes = marks(p)
    timeout_ms = p["client_timeout_ms"]
    level, level_note = hline(
        timeout_ms, gettext("the caller's timeout (%(ms)s ms)") % {"ms": num(timeout_ms)}, AGE
    )
    return figure(
        title=gettext("Wait of the callers answered each second (gaps: nobody was answered)"),
        x_title=gettext("second"),
        y_title=gettext("milliseconds"),
        traces=[
            line(x, s["latency_p50_ms"], gettext("p50, the attempt answered"), color=OK),
            line(x, s["latency_p99_ms"], gettext("p99, the attempt answered"), color=FAST_FAIL),
            line(
                x,
                s["call_latency_p99_ms"],
                gettext("p99, the whole call (retries included)"),
                color=FAILED,
                dash="dot",
            ),
        ],
        shapes=[*shapes, level],
        annotations=[*notes, level_note],
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [flows(result), backlog(result), payments(result), latency(result)]
