"""Charts for availability: time down per year as copies are added and as a chain grows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import figure, line
from labs.text import gettext_noop, given

# A log axis cannot show zero: a perfect 100% is drawn at a millionth of a second a year.
FLOOR_MIN = 1e-6 / 60


def _floor(values: list[float]) -> list[float]:
    return [max(FLOOR_MIN, v) for v in values]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, p = result["series"], result["params"]
    copies = figure(
        title=gettext_noop("Minutes down per year as copies are added (log scale)"),
        x_title=gettext_noop("copies (one in each AZ)"),
        y_title=gettext_noop("minutes down per year"),
        traces=[
            line(
                s["copies"],
                _floor(s[f"down_min_per_year_at_{one:g}"]),
                f"one copy {given(one)}%",
                with_markers=True,
            )
            for one in p["one_copy_pct"]
        ],
        y_log=True,
        x_whole=True,
    )
    data = result["tables"]["chain_data"]
    chain = figure(
        title=gettext_noop("Minutes down per year as the chain grows (log scale)"),
        x_title=gettext_noop("links in the chain"),
        y_title=gettext_noop("minutes down per year"),
        traces=[
            line(
                data["links"],
                _floor(data["single"]),
                gettext_noop("one copy of each link"),
                with_markers=True,
            ),
            line(
                data["links"],
                _floor(data["copied"]),
                f"{p['link_copies']} copies of each link",
                with_markers=True,
            ),
        ],
        y_log=True,
        x_whole=True,
    )
    return [copies, chain]
