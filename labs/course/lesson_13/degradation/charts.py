"""Charts for graceful degradation: what each second's requests got, with and without a fallback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, FAST_FAIL, OK, bar, figure
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    with_fallback = figure(
        title=gettext_noop("With a fallback: answers each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests"),
        traces=[
            bar(x, s["full"], gettext_noop("full page"), color=OK),
            bar(x, s["degraded"], gettext_noop("older page, marked"), color=FAST_FAIL),
            bar(x, s["error"], gettext_noop("error page"), color=FAILED),
        ],
        barmode="stack",
        height=300,
    )
    without = figure(
        title=gettext_noop("Without a fallback: answers each second"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("requests"),
        traces=[
            bar(x, s["full"], gettext_noop("full page"), color=OK),
            bar(x, s["error_without_fallback"], gettext_noop("error page"), color=FAILED),
        ],
        barmode="stack",
        height=300,
    )
    return [with_fallback, without]
