"""Charts for graceful degradation: what each second's requests got, with and without a fallback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, FAST_FAIL, OK, bar, figure


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    with_fallback = figure(
        title="With a fallback: answers each second",
        x_title="second",
        y_title="requests",
        traces=[
            bar(x, s["full"], "full page", color=OK),
            bar(x, s["degraded"], "older page, marked", color=FAST_FAIL),
            bar(x, s["error"], "error page", color=FAILED),
        ],
        barmode="stack",
        height=300,
    )
    without = figure(
        title="Without a fallback: answers each second",
        x_title="second",
        y_title="requests",
        traces=[
            bar(x, s["full"], "full page", color=OK),
            bar(x, s["error_without_fallback"], "error page", color=FAILED),
        ],
        barmode="stack",
        height=300,
    )
    return [with_fallback, without]
