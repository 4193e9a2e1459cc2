"""Charts for the layered retries lab: calls per click for each policy, at the chosen
failure rate and over every failure rate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, bar, figure, line
from labs.text import gettext

_COLOURS = {"every_layer": COLORS["failed"], "one_layer": COLORS["ok"], "budget": COLORS["workers"]}


def _names() -> dict[str, str]:
    return {
        "every_layer": gettext("every layer retries"),
        "one_layer": gettext("only one layer retries"),
        "budget": gettext("retry budget"),
    }


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, series, p = result["summary"], result["series"], result["params"]
    names = _names()
    policies = list(names)
    now = figure(
        title=gettext("Calls reaching the service for one click, with %(pct)s%% failing")
        % {"pct": f"{p['failure_pct']:g}"},
        x_title=gettext("where the retries live"),
        y_title=gettext("calls per click"),
        traces=[bar([names[k]], [s[f"{k}_calls"]], names[k], color=_COLOURS[k]) for k in policies],
        x_category=True,
        height=320,
    )
    sweep = figure(
        title=gettext("Calls per click as the service gets sicker"),
        x_title=gettext("calls the service fails, in percent"),
        y_title=gettext("calls per click"),
        traces=[
            line(series["failure_pct"], series[f"{k}_calls"], names[k], color=_COLOURS[k])
            for k in policies
        ],
    )
    return [now, sweep]
