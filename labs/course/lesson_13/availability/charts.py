"""Charts for availability: time down per year as copies are added and as a chain grows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import figure, hline, line
from labs.text import gettext, gettext_noop, given, ngettext

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
                gettext("one copy %(pct)s%%") % {"pct": given(one)},
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
                ngettext("%(n)s copy of each link", "%(n)s copies of each link", p["link_copies"])
                % {"n": p["link_copies"]},
                with_markers=True,
            ),
        ],
        y_log=True,
        x_whole=True,
    )
    return [copies, *_sharing(result), chain]


def _sharing(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The same copies when they all need one dependency: the line stops falling at the
    shared part's own downtime, however many copies are added."""
    data, p = result["tables"].get("shared_data"), result["params"]
    if data is None:  # a run saved before the lab had a shared dependency
        return []
    one = given(p["one_copy_pct"][0])
    traces = [
        line(
            data["copies"],
            _floor(data["independent"]),
            gettext("one copy %(pct)s%%, nothing shared") % {"pct": one},
            with_markers=True,
        ),
        line(
            data["copies"],
            _floor(data["sharing"]),
            gettext("one copy %(pct)s%%, all need one %(shared)s%% dependency")
            % {"pct": one, "shared": given(p["shared_pct"])},
            with_markers=True,
        ),
    ]
    shapes, notes = [], []
    if data["shared_alone"] > 0:
        shape, note = hline(
            data["shared_alone"], gettext_noop("the shared dependency alone"), y_log=True
        )
        shapes, notes = [shape], [note]
    return [
        figure(
            title=gettext_noop("Copies that share a dependency fail together (log scale)"),
            x_title=gettext_noop("copies (one in each AZ)"),
            y_title=gettext_noop("minutes down per year"),
            traces=traces,
            shapes=shapes,
            annotations=notes,
            y_log=True,
            x_whole=True,
        )
    ]
