"""Charts of a run over 20 seeds: the key figure seed by seed, and a band over time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import GREY, PALETTE, figure, hline, line, markers
from labs.text import gettext_noop


def build(data: Mapping[str, Any], figure_label: str) -> list[dict[str, Any]]:
    """`data` is the result's `seed_spread_data`; `figure_label` names its key figure."""
    seeds = [str(s) for s in data["seeds"]]
    values = data["values"]
    expected = data.get("expected")
    level = hline(expected, gettext_noop("expected")) if expected is not None else None
    strip = figure(
        title=figure_label,
        x_title=gettext_noop("seed"),
        y_title=figure_label,
        traces=[
            markers(seeds[1:], values[1:], gettext_noop("the next 19 seeds"), color=GREY),
            markers(seeds[:1], values[:1], gettext_noop("your seed"), color=PALETTE[0]),
        ],
        shapes=[level[0]] if level else None,
        annotations=[level[1]] if level else None,
        x_category=True,
        hovermode="closest",
        height=260,
    )
    if data.get("percent"):
        strip["layout"]["yaxis"]["tickformat"] = ".0%"
    charts = [strip]
    band = data.get("band")
    if band:
        charts.append(
            figure(
                title=gettext_noop("The same series over 20 seeds: lowest, median and highest"),
                x_title=band["x_label"],
                y_title=band["y_label"],
                traces=[
                    line(band["x"], band["high"], gettext_noop("highest"), color=GREY, dash="dot"),
                    line(band["x"], band["median"], gettext_noop("median"), color=GREY),
                    line(band["x"], band["low"], gettext_noop("lowest"), color=GREY, dash="dot"),
                    line(band["x"], band["own"], gettext_noop("your seed"), color=PALETTE[0]),
                ],
                height=300,
            )
        )
    return charts
