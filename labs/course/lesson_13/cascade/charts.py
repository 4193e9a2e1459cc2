"""Charts for the cascade: what callers got, the threads held, and who reached the dependency."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import (
    COLORS,
    FAILED,
    FAST_FAIL,
    GREY,
    OK,
    PALETTE,
    bar,
    figure,
    hline,
    line,
    window,
)
from labs.text import gettext_noop


def _stall(result: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    p = result["params"]
    return window(p["down_from_s"], p["down_until_s"], gettext_noop("dependency stuck"))


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    stall_shape, stall_note = _stall(result)
    answers = figure(
        title=gettext_noop("What callers got each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests"),
        traces=[
            bar(x, s["ok"], gettext_noop("full answer"), color=OK),
            bar(x, s["fallback"], gettext_noop("cached page"), color=FAST_FAIL),
            bar(x, s["errors"], gettext_noop("error"), color=FAILED),
            bar(x, s["gave_up"], gettext_noop("caller gave up"), color=GREY),
            line(x, s["bare_usable"], gettext_noop("usable with no tool"), dash="dot", color=GREY),
        ],
        barmode="stack",
        shapes=[stall_shape],
        annotations=[stall_note],
        height=320,
    )
    threads = result["params"]["threads"]
    limit_shape, limit_note = hline(threads, gettext_noop("threads in the pool"))
    stall_shape, stall_note = _stall(result)
    pool = figure(
        title=gettext_noop("Threads held and requests waiting for one"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests"),
        traces=[
            line(x, s["threads_busy"], gettext_noop("threads held"), color=COLORS["workers"]),
            line(x, s["queued"], gettext_noop("waiting for a thread"), color=COLORS["backlog"]),
        ],
        shapes=[stall_shape, limit_shape],
        annotations=[stall_note, limit_note],
        height=300,
    )
    stall_shape, stall_note = _stall(result)
    calls = figure(
        title=gettext_noop("Calls to the dependency, and retries"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("calls"),
        traces=[
            bar(x, s["dependency_calls"], gettext_noop("reached the dependency"), color=PALETTE[3]),
            bar(x, s["fast_fails"], gettext_noop("refused by the breaker"), color=FAST_FAIL),
            line(
                x, s["retries"], gettext_noop("retries sent"), color=COLORS["retries"], dash="dash"
            ),
        ],
        barmode="stack",
        shapes=[stall_shape],
        annotations=[stall_note],
        height=300,
    )
    return [answers, pool, calls]
