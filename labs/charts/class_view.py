"""Charts of a whole class's runs of one lab: overlaid lines, spreads, pass rates, changes.

Drawn from what the teacher's page gives them (each student's stored line and figures),
never from a model run. Which series a lab's class overlay draws, and which figures it
spreads first, are said here, beside the charts that use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from textwrap import wrap
from typing import Any

from labs.charts.base import (
    BLUE,
    BLUE_WASH,
    FAILED,
    GREY,
    NOTE_BACKGROUND,
    OK,
    PALETTE,
    REFERENCE,
    bar,
    figure,
    plotly_text,
)
from labs.text import gettext, gettext_noop, num

# A lab's main series for the overlay, as (x key, y key), where the first other than time
# is not the one a lesson looks at.
MAIN_SERIES = {
    "trapped-service": ("second", "backlog"),
    "trapped-live": ("second", "backlog"),
    "drain": ("second", "backlog"),
    "drain-compare": ("second", "backlog"),
}
# The figures whose spread a teacher looks at first, per lab (the criteria's come first).
KEY_FIGURES = {
    "trapped-service": (
        "recovered_at_s",
        "peak_backlog",
        "obligations_lost",
        "p99_ms_last_30s",
        "goodput_last_30s_rps",
    ),
    "drain": ("peak_backlog", "cleared_at_s", "worker_seconds", "left_at_end"),
}
MOST_KEY_FIGURES = 6
LINE_COLOUR = BLUE
# Where the dots of a spread sit above and below its box's middle (in box heights).
JITTER = (0.0, 0.18, -0.18, 0.09, -0.27, 0.27, -0.09, 0.22, -0.22, 0.04)
REFERENCE_COLOUR = REFERENCE


def main_series(lab: str, order: Sequence[str]) -> tuple[str, str] | None:
    """The (x, y) series a lab's class overlay draws: declared above, else the backlog
    against time when the lab has one, else the first series after time."""
    if lab in MAIN_SERIES:
        return MAIN_SERIES[lab]
    if len(order) < 2:
        return None
    return order[0], "backlog" if "backlog" in order[1:] else order[1]


@dataclass(frozen=True)
class StudentLine:
    """One student's line on the overlay: who (as the page may show them) and the points."""

    label: str
    x: Sequence[Any]
    y: Sequence[Any]


def overlay(
    lines: Sequence[StudentLine],
    *,
    title: str,
    x_title: str,
    y_title: str,
    reference: StudentLine | None = None,
) -> dict[str, Any]:
    """Every student's line, thin and alike, so the class's shape shows and one that
    differs stands out; the lesson's case drawn dashed and dark on top. The page's script
    thickens the line under the pointer or the name picked."""
    traces = []
    for student in lines:
        trace = {
            "type": "scatter",
            "mode": "lines",
            "name": plotly_text(student.label),
            "x": list(student.x),
            "y": list(student.y),
            "line": {"color": LINE_COLOUR, "width": 1},
            "opacity": 0.45,
            "showlegend": False,
            "hovertemplate": "%{fullData.name}: %{y}<extra></extra>",
        }
        traces.append(trace)
    if reference is not None:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": gettext("the lesson's case"),
                "x": list(reference.x),
                "y": list(reference.y),
                "line": {"color": REFERENCE_COLOUR, "width": 2, "dash": "dash"},
                "hovertemplate": "%{fullData.name}: %{y}<extra></extra>",
            }
        )
    fig = figure(
        title=title,
        x_title=x_title,
        y_title=y_title,
        traces=traces,
        height=420,
        hovermode="closest",
    )
    fig["layout"]["showlegend"] = reference is not None
    return fig


@dataclass(frozen=True)
class Mark:
    """A value drawn across a spread: the lesson's reference, or a criterion's bound."""

    value: float
    label: str
    colour: str = REFERENCE_COLOUR


def spread(
    points: Sequence[tuple[str, float]],
    *,
    title: str,
    unit: str,
    marks: Sequence[Mark] = (),
    outliers: Sequence[str] = (),
) -> dict[str, Any]:
    """One figure across the class: a box (quartiles) with every student as a dot, the
    outliers red, and the lesson's value and the criteria's bounds as vertical lines."""
    labels = [plotly_text(label) for label, _value in points]
    values = [value for _label, value in points]
    flagged = set(outliers)
    colours = [FAILED if label in flagged else LINE_COLOUR for label, _value in points]
    box = {
        "type": "box",
        "orientation": "h",
        "x": values,
        "y": [0] * len(values),
        "name": "",
        "boxpoints": False,
        "width": 0.7,
        "fillcolor": BLUE_WASH,
        "line": {"color": GREY, "width": 1},
        "hoverinfo": "skip",
        "showlegend": False,
    }
    # The dots apart from the box, so each can have its colour: spread up and down by a
    # fixed pattern rather than at random, so a page drawn twice looks the same.
    dots = {
        "type": "scatter",
        "mode": "markers",
        "x": values,
        "y": [JITTER[n % len(JITTER)] for n in range(len(values))],
        "text": labels,
        "name": "",
        "marker": {"color": colours, "size": 9, "opacity": 0.85},
        "hovertemplate": "%{text}: %{x}<extra></extra>",
        "showlegend": False,
    }
    fig = figure(
        title=title,
        x_title=unit,
        y_title="",
        traces=[box, dots],
        height=250,
        hovermode="closest",
    )
    layout = fig["layout"]
    layout["margin"] = {"l": 20, "r": 20, "t": 90, "b": 50}
    layout["yaxis"] = {
        "showticklabels": False,
        "fixedrange": True,
        "range": [-0.6, 0.6],
        "zeroline": False,
        "showgrid": False,
    }
    span = padded_range([*values, *(m.value for m in marks)])
    shapes, notes = [], []
    for n, mark in enumerate(marks):
        # A note at either edge is written inwards from its line, so it is not cut off.
        where = (mark.value - span[0]) / ((span[1] - span[0]) or 1)
        anchor = "left" if where < 0.25 else "right" if where > 0.75 else "center"
        shapes.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": mark.value,
                "x1": mark.value,
                "y0": 0,
                "y1": 1,
                "line": {"color": mark.colour, "dash": "dash", "width": 2},
            }
        )
        notes.append(
            {
                "x": mark.value,
                "y": 1,
                "yshift": 18 * (n % 2),  # two notes on one line would overlap
                "xref": "x",
                "yref": "paper",
                "text": plotly_text(mark.label),
                "showarrow": False,
                "yanchor": "bottom",
                "xanchor": anchor,
                "bgcolor": NOTE_BACKGROUND,
                "font": {"color": mark.colour},
            }
        )
    layout["shapes"], layout["annotations"] = shapes, notes
    layout["xaxis"]["range"] = span
    return fig


def padded_range(values: Sequence[float]) -> list[float]:
    """The values' span with a margin each side (a single value gets a span of its own), so
    a reference line at the edge is not cut and one dot is not drawn on the frame."""
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.06 or max(abs(hi) * 0.1, 1)
    return [lo - pad, hi + pad]


def pass_rates(rows: Sequence[tuple[str, int, int]]) -> dict[str, Any]:
    """Each criterion's share of the class passing it, as bars with "n of m" on them."""
    # A criterion in words is a sentence: wrapped, so a phone's narrow chart keeps its bars.
    names = ["<br>".join(wrap(plotly_text(text), 32)) for text, _passed, _total in rows]
    shares = [round(100 * passed / total) if total else 0 for _text, passed, total in rows]
    words = [
        gettext("%(passed)s of %(total)s") % {"passed": passed, "total": total}
        for _text, passed, total in rows
    ]
    trace = bar(shares, names, gettext_noop("percent passed"), color=OK, text=words)
    trace["orientation"] = "h"
    trace["hovertemplate"] = "%{y}: %{x}%<extra></extra>"
    fig = figure(
        title=gettext_noop("Share of the class passing each criterion"),
        x_title=gettext_noop("percent of the runs handed in"),
        y_title="",
        traces=[trace],
        height=max(200, 60 + 44 * len(rows)),
        x_category=False,
        hovermode="closest",
    )
    layout = fig["layout"]
    layout["xaxis"]["range"] = [0, 118]  # room for the "n of m" after a full bar
    layout["yaxis"] = {"automargin": True, "autorange": "reversed", "type": "category"}
    layout["showlegend"] = False
    return fig


def changed_counts(rows: Sequence[tuple[str, int]], total: int) -> dict[str, Any]:
    """How many students changed each control or parameter from where the assignment
    started them."""
    names = [plotly_text(name) for name, _count in rows]
    counts = [count for _name, count in rows]
    trace = bar(counts, names, gettext_noop("students"), color=PALETTE[1], text=counts)
    trace["orientation"] = "h"
    trace["hovertemplate"] = "%{y}: %{x}<extra></extra>"
    fig = figure(
        title=gettext_noop("Controls and parameters the class changed"),
        x_title=gettext("students (of %(n)s who handed in)") % {"n": num(total)},
        y_title="",
        traces=[trace],
        height=max(200, 60 + 34 * len(rows)),
        hovermode="closest",
    )
    layout = fig["layout"]
    layout["xaxis"]["range"] = [0, max(total, 1) * 1.12]
    layout["yaxis"] = {"automargin": True, "autorange": "reversed", "type": "category"}
    layout["showlegend"] = False
    return fig


def sparkline(
    x: Sequence[Any],
    y: Sequence[Any],
    x_span: tuple[float, float],
    y_top: float,
    *,
    width: int = 160,
    height: int = 48,
) -> str:
    """An SVG polyline's points for one student's small chart, on the class's shared axes
    (so two small charts compare at a glance); a gap in the data is left out."""
    x0, x1 = x_span
    x_scale = width / ((x1 - x0) or 1)
    y_scale = (height - 2) / (y_top or 1)
    points = [
        f"{(xv - x0) * x_scale:.0f},{height - 1 - yv * y_scale:.0f}"
        for xv, yv in zip(x, y, strict=False)
        if isinstance(xv, int | float) and isinstance(yv, int | float)
    ]
    return " ".join(points)
