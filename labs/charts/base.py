"""Small builders for Plotly figure dicts, so every lab's charts look alike.

The figures are plain dicts in Plotly's JSON schema; the browser draws them with the
vendored plotly.js. They are checked against Plotly's schema in the tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# One meaning, one colour, on every chart of the site.
COLORS = {
    "arrived": "#1f6feb",  # work offered
    "done": "#1a7f37",  # work finished / ok
    "ok": "#1a7f37",
    "backlog": "#bc4c00",  # work waiting
    "failed": "#d1242f",
    "fast_fail": "#d4a72c",
    "workers": "#8250df",
    "retries": "#d1242f",
    "wasted": "#57606a",
}
PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bc4c00", "#57606a"]


def line(
    x: Sequence[Any],
    y: Sequence[Any],
    name: str,
    *,
    dash: str | None = None,
    fill: bool = False,
    shape: str = "linear",
    yaxis: str | None = None,
    color: str | None = None,
) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": list(x),
        "y": list(y),
        "line": {"shape": shape},
    }
    if dash:
        trace["line"]["dash"] = dash
    if color:
        trace["line"]["color"] = color
    if fill:
        trace["fill"] = "tozeroy"
    if yaxis:
        trace["yaxis"] = yaxis
    return trace


def bar(x: Sequence[Any], y: Sequence[Any], name: str, *, color: str | None = None) -> dict:
    trace: dict[str, Any] = {"type": "bar", "name": name, "x": list(x), "y": list(y)}
    if color:
        trace["marker"] = {"color": color}
    return trace


def figure(
    *,
    title: str,
    x_title: str,
    y_title: str,
    traces: list[dict[str, Any]],
    height: int = 380,
    shapes: list[dict[str, Any]] | None = None,
    annotations: list[dict[str, Any]] | None = None,
    barmode: str | None = None,
) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": title},
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.2},
        "colorway": PALETTE,
        "hovermode": "x unified",
    }
    if shapes:
        layout["shapes"] = shapes
    if annotations:
        layout["annotations"] = annotations
    if barmode:
        layout["barmode"] = barmode
    return {"data": traces, "layout": layout}


def window(
    x0: float, x1: float, label: str, color: str = "#d1242f"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A shaded vertical band and its label, e.g. an outage: pass to `shapes` and `annotations`."""
    shape = {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": color,
        "opacity": 0.08,
        "line": {"width": 0},
    }
    note = {
        "x": (x0 + x1) / 2,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "text": label,
        "showarrow": False,
        "yanchor": "bottom",
    }
    return shape, note
