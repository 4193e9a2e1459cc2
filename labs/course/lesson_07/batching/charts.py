"""Charts for the batching lab: minutes to send everything, for each worker count, one
message per call against the chosen batch; the provider's limit flattens both."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line, vline
from labs.text import gettext


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    you, you_note = vline(p["workers"], gettext("your workers"))
    minutes = figure(
        title=gettext("Minutes until every message is sent"),
        x_title=gettext("workers"),
        y_title=gettext("minutes"),
        traces=[
            line(
                s["workers"],
                s["minutes_single"],
                gettext("one message per call"),
                color=COLORS["failed"],
            ),
            line(
                s["workers"],
                s["minutes_batched"],
                gettext("%(batch)s messages per call") % {"batch": p["batch"]},
                color=COLORS["ok"],
            ),
        ],
        shapes=[you],
        annotations=[you_note],
        y_log=True,
    )
    return [minutes]
