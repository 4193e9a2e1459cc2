"""Charts for the backoff lab: the wait before each retry, one colour per jitter kind."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from labs.charts.base import JITTER_COLOURS, JITTER_LABELS, bar, figure, line
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["retry"]
    waits = figure(
        title=gettext_noop("Wait before each retry"),
        x_title=gettext_noop("retry"),
        y_title=gettext_noop("milliseconds"),
        traces=[
            bar(x, s[f"{kind}_ms"], JITTER_LABELS[kind], color=colour)
            for kind, colour in JITTER_COLOURS.items()
        ],
        barmode="group",
        hovermode="x unified",
    )
    when = figure(
        title=gettext_noop("When each retry is sent (ms after the first failure)"),
        x_title=gettext_noop("retry"),
        y_title=gettext_noop("milliseconds since the failure"),
        traces=[
            line(x, list(accumulate(s[f"{kind}_ms"])), JITTER_LABELS[kind], color=colour)
            for kind, colour in JITTER_COLOURS.items()
        ],
        height=300,
    )
    return [waits, when]
