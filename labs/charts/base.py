"""Small builders for Plotly figure dicts, so every lab's charts look alike.

The figures are plain dicts in Plotly's JSON schema; the browser draws them with the
vendored plotly.js. They are checked against Plotly's schema in the tests.

Every title, axis title, legend name and note passes through `labs.text.gettext` here,
so a chart is drawn in the reader's language (charts are built when a page renders).
Chart modules mark their fixed words with `gettext_noop`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from labs.text import gettext, gettext_noop

# Every chart's colours are named here and only here (tests/labs/charts/test_colours.py): a chart
# module names a colour, never writes its code, so one meaning keeps one colour site-wide.
# The palette's hues: lines and bars with no meaning of their own beyond their legend.
BLUE = "#1f6feb"  # the first such series; the run with the controls on
PURPLE = "#8250df"  # the second: workers, a limit, a dead-letter queue, an age
ORANGE = "#bc4c00"  # the third: work waiting
TEAL = "#0a7ea4"  # the fourth: work that joined another's fetch, a switch, receives
PINK = "#bf3989"
SLATE = "#57606a"  # quiet: work completed, beside the lines the chart is about
SLATE_LIGHT = "#6e7781"
# Not series: what a chart marks against them.
INK = "#1f2328"  # the text's colour: a reference (all requests offered) or a marked point
REFERENCE = "#24292f"  # a class's reference line, a shade off the text's colour
FAINT = "#d0d7de"  # a calm state, faint so the others stand out (a closed breaker)
BLUE_WASH = "rgba(31,111,235,0.08)"  # BLUE, nearly clear: a box filled behind its dots
NOTE_BACKGROUND = "rgba(255,255,255,0.85)"  # white, a little clear: a note over the lines

# Lines and bars with no meaning of their own: no green, red or amber, which mean
# ok, failed and fast-fail (or degraded) everywhere on the site.
PALETTE = [BLUE, PURPLE, ORANGE, TEAL, PINK, SLATE, SLATE_LIGHT]

# One meaning, one colour, in every lab: a student learns them once.
OK = "#1a7f37"  # green: the call worked, the full answer
FAILED = "#d1242f"  # red: the call reached a sick service and failed; an error page
FAST_FAIL = "#d4a72c"  # amber: refused at once by an open breaker; a degraded answer
GREY = "#8c959f"  # the plain, untreated case (no jitter, no fallback)
BUSY = FAST_FAIL  # amber too: a spell when a service is strained (a busy minute)
OUTCOME_COLOURS = {"ok": OK, "failed": FAILED, "fast-fail": FAST_FAIL}
JITTER_COLOURS = {"none": GREY, "full": BLUE, "equal": PURPLE, "decorrelated": ORANGE}
JITTER_LABELS = {
    "none": gettext_noop("no jitter"),
    "full": gettext_noop("full jitter"),
    "equal": gettext_noop("equal jitter"),
    "decorrelated": gettext_noop("decorrelated jitter"),
}
# Devanagari first (only its own code points), so Marathi in a chart uses the vendored font.
FONT = '"Noto Sans Devanagari", system-ui, sans-serif'

# Flows that recur across labs (arrivals, work done, the backlog...).
COLORS = {
    "arrived": BLUE,  # work offered
    "done": OK,  # work finished
    "ok": OK,
    "backlog": ORANGE,  # work waiting
    "failed": FAILED,
    "fast_fail": FAST_FAIL,
    "workers": PURPLE,
    "retries": FAILED,
    "wasted": GREY,
}


# A moment's note (`vline`) is marked so `figure` can place it once the x span is known;
# the mark is taken off before the figure leaves.
MOMENT = "_moment"
MOMENT_Y = 0.8  # below a marked window's note, which sits at the top
MOMENT_STEP = 0.16  # how far down the next note goes when two moments are close


def _t(text: str) -> str:
    """`text` in the reader's language ('' stays '': gettext('') is the catalogue's header)."""
    return gettext(text) if text else text


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
    with_markers: bool = False,
) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": "lines+markers" if with_markers else "lines",
        "name": _t(name),
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


def sampled(samples: Sequence[Mapping[str, Any]], x_key: str) -> Callable[..., dict[str, Any]]:
    """Lines from a run's readings: `draw(key, name, **style)` is `key` of every sample
    against its `x_key` (a missing reading is a gap), styled as `line` takes it."""
    x = [s.get(x_key) for s in samples]

    def draw(key: str, name: str, **style: Any) -> dict[str, Any]:
        return line(x, [s.get(key) for s in samples], name, **style)

    return draw


def bar(
    x: Sequence[Any],
    y: Sequence[Any],
    name: str,
    *,
    color: str | None = None,
    width: float | None = None,
    text: Sequence[Any] | None = None,
    yaxis: str | None = None,
) -> dict:
    """Bars at `x`. Give `width` (in x units) when x is sparse, or Plotly guesses it wide."""
    trace: dict[str, Any] = {"type": "bar", "name": _t(name), "x": list(x), "y": list(y)}
    if color:
        trace["marker"] = {"color": color}
    if width is not None:
        trace["width"] = width
    if text is not None:
        trace["text"] = [str(t) for t in text]
        trace["textposition"] = "outside"
    if yaxis:
        trace["yaxis"] = yaxis
    return trace


def markers(
    x: Sequence[Any],
    y: Sequence[Any],
    name: str,
    *,
    color: str | None = None,
    symbol: str | Sequence[str] = "circle",
    size: int = 10,
    text: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Points without lines, e.g. one per call on a timeline."""
    marker: dict[str, Any] = {
        "size": size,
        "symbol": symbol if isinstance(symbol, str) else list(symbol),
    }
    if color:
        marker["color"] = color
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": "markers",
        "name": _t(name),
        "x": list(x),
        "y": list(y),
        "marker": marker,
    }
    if text is not None:
        trace["text"] = list(text)
        trace["hoverinfo"] = "text"
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
    y_log: bool = False,
    x_category: bool = False,
    x_whole: bool = False,
    y_ticks: tuple[Sequence[float], Sequence[str]] | None = None,
    y_range: tuple[float, float] | None = None,
    hovermode: str = "x unified",
) -> dict[str, Any]:
    """A figure dict with the site's layout; the keyword options cover what labs vary."""
    layout: dict[str, Any] = {
        # Hung from the chart's top, whatever the lines a phone wraps it into (charts.js
        # widens the top margin for them): centred in the margin, it ran down onto the notes.
        "title": {
            "text": _t(title),
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": 24},
        },
        "height": height,
        "font": {"family": FONT},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
        "xaxis": {"title": {"text": _t(x_title)}},
        "yaxis": {
            "title": {"text": _t(y_title)},
            "rangemode": "tozero",
        },
        "legend": {"orientation": "h", "y": -0.2},
        "colorway": PALETTE,
        "hovermode": hovermode,
    }
    if y_log:
        layout["yaxis"]["type"] = "log"
        del layout["yaxis"]["rangemode"]  # a log axis has no zero
        layout["yaxis"]["exponentformat"] = "none"  # 0.001, not 1m (which reads as metres)
    if x_category:
        layout["xaxis"]["type"] = "category"
        layout["xaxis"]["automargin"] = True  # the last group's words stay inside the chart
        # Under everything, at the chart's foot: a category's words may wrap or turn on a
        # phone, and a legend placed at a fraction of the plot's height landed on them.
        layout["legend"].update(yref="container", y=0, yanchor="bottom")
    if x_whole:  # counts of things: no tick at 1.5 copies
        layout["xaxis"]["dtick"] = 1
    if y_ticks:
        layout["yaxis"]["tickvals"] = list(y_ticks[0])
        layout["yaxis"]["ticktext"] = list(y_ticks[1])
        layout["yaxis"]["automargin"] = True  # words are wider than numbers: make room
    if y_range:
        layout["yaxis"]["range"] = list(y_range)
    if shapes:
        layout["shapes"] = shapes
    if annotations:
        layout["annotations"] = annotations
    if barmode:
        layout["barmode"] = barmode
    span = None if x_category else data_span(traces)
    place_notes(layout.get("annotations", []), span)
    if span and (annotations or any("lines" in t.get("mode", "") for t in traces)):
        # Plotly widens an automatic range to fit notes written in data coordinates: on a
        # phone a note's text is wide in data units and an axis ran far past its data
        # (a time line, or the retry storm's bars with their pointers).
        layout["xaxis"]["range"] = list(span)
    return {"data": traces, "layout": layout}


def place_notes(notes: list[dict[str, Any]], span: tuple[float, float] | None) -> None:
    """Keep notes inside the chart and off each other: a moment's note in the right third of
    the x span reads leftwards from its line (else it ran off the chart's right edge), in
    the middle third it is centred on it; a pointer's note leans away from the nearer side;
    the notes of moments close in time step down the chart instead of piling up (a live
    run's switches)."""
    moments = sorted((n for n in notes if n.pop(MOMENT, False)), key=lambda n: n["x"])
    if span is None:
        return
    lo, hi = span
    middle, near, third = (lo + hi) / 2, (hi - lo) * 0.3, (hi - lo) / 3
    level, last_x = 0, None
    for note in moments:
        if note["x"] > hi - third:
            note["xanchor"] = "right"
        elif note["x"] > lo + third:
            note["xanchor"] = "center"  # in the middle third, neither side has room on a phone
        close = last_x is not None and note["x"] - last_x < near
        level = (level + 1) % 4 if close else 0
        note["y"] = MOMENT_Y - level * MOMENT_STEP
        last_x = note["x"]
    for note in notes:
        if note.get("showarrow") and note.get("xref") == "x" and isinstance(note["x"], int | float):
            right = note["x"] > middle
            note["xanchor"] = "right" if right else "left"
            note["ax"] = -abs(note.get("ax", 40)) if right else abs(note.get("ax", 40))


def data_span(traces: Sequence[Mapping[str, Any]], axis: str = "x") -> tuple[float, float] | None:
    """The smallest and largest x of the traces on `axis` (a bar reaches half its width past
    its x); None when they have no numbers there or only one."""
    lo, hi = math.inf, -math.inf
    for trace in traces:
        if trace.get("xaxis", "x") != axis or trace.get("visible") is False:
            continue
        xs = [v for v in trace.get("x") or () if isinstance(v, int | float)]
        if not xs:
            continue
        if len(xs) != len(trace["x"]):
            return None  # words on the axis: leave it to Plotly
        pad = 0.0
        if trace.get("type") in ("bar", "heatmap"):  # a bar or a cell is centred on its x
            ordered = sorted(set(xs))
            gaps = [b - a for a, b in zip(ordered, ordered[1:], strict=False)]
            pad = trace.get("width", min(gaps) if gaps else 1) / 2
        lo, hi = min(lo, min(xs) - pad), max(hi, max(xs) + pad)
    return (lo, hi) if lo < hi else None


def window(
    x0: float, x1: float, label: str, color: str = FAILED
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
    # Inside the plot, at its top: above it, the note sat on the last line of a title that
    # wraps on a phone.
    note = {
        "x": (x0 + x1) / 2,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "text": _t(label),
        "showarrow": False,
        "yanchor": "top",
        "bgcolor": NOTE_BACKGROUND,
    }
    return shape, note


def band(
    x0: float, x1: float, y0: float, y1: float, color: str, *, opacity: float = 0.35
) -> dict[str, Any]:
    """A filled rectangle in data coordinates, e.g. one stretch of a breaker's state."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": x0,
        "x1": x1,
        "y0": y0,
        "y1": y1,
        "fillcolor": color,
        "opacity": opacity,
        "line": {"width": 0},
        "layer": "below",
    }


def hline(
    y: float, label: str, color: str = GREY, *, y_log: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed level across the chart and its label: pass to `shapes` and `annotations`.

    On a log axis a shape takes the value itself but a note takes its log10.
    """
    shape = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": y,
        "y1": y,
        "line": {"color": color, "dash": "dash", "width": 1.5},
    }
    note = {
        "x": 1,
        "y": math.log10(y) if y_log else y,
        "xref": "paper",
        "yref": "y",
        "text": _two_lines(_t(label)),
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "bgcolor": NOTE_BACKGROUND,
    }
    return shape, note


def pointer(x: Any, y: float, text: str, *, y_log: bool = False) -> dict[str, Any]:
    """An arrow with a note pointing at one point, e.g. the busiest slot."""
    return {
        "x": x,
        "y": math.log10(y) if y_log else y,
        "xref": "x",
        "yref": "y",
        "text": _t(text),
        "showarrow": True,
        "arrowhead": 2,
        "ax": 40,
        "ay": -40,
    }


def vline(x: float, label: str, color: str = GREY) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed moment across the chart and its label, e.g. when the controls went on."""
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": color, "dash": "dash", "width": 1.5},
    }
    note = {
        "x": x,
        "y": MOMENT_Y,
        "xref": "x",
        "yref": "paper",
        "text": _two_lines(_t(label)),
        "showarrow": False,
        "xanchor": "left",
        "bgcolor": NOTE_BACKGROUND,
        MOMENT: True,
    }
    return shape, note


def _two_lines(text: str, most: int = 24) -> str:
    """A long note broken before its bracket, or at the space nearest its middle: on a
    phone a note one line long ran past the chart's edge."""
    if len(text) <= most or "<br>" in text:
        return text
    at = text.find(" (")
    if at <= 0 and len(text) <= most + 8:
        return text
    if at <= 0:
        spaces = [i for i, c in enumerate(text) if c == " "]
        if not spaces:
            return text
        at = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return f"{text[:at]}<br>{text[at + 1 :]}"


def right_axis(fig: dict[str, Any], title: str, *, y_range: Sequence[float] | None = None) -> None:
    """Give `fig` a second y axis on the right, for traces made with `yaxis="y2"`.

    Its ticks are its own round steps: Plotly syncs an overlaying axis's ticks to the left
    axis's grid by default, which steps it 5.15, 10.31, 15.46..."""
    axis: dict[str, Any] = {
        "title": {"text": _t(title)},
        "overlaying": "y",
        "side": "right",
        "rangemode": "tozero",
        "showgrid": False,
        "tickmode": "auto",
    }
    if y_range is not None:
        axis["range"] = list(y_range)
    fig["layout"]["yaxis2"] = axis
    fig["layout"]["margin"]["r"] = 60


def stacked(trace: dict[str, Any], group: str) -> dict[str, Any]:
    """Stack a `line` trace on the others of `group`, filled below: parts of one whole."""
    trace["stackgroup"] = group
    trace["line"]["width"] = 0.5
    return trace


def plotly_text(text: str) -> str:
    """`text` as Plotly shows it literally: Plotly reads a subset of HTML in trace names,
    titles and labels (links, bold, line breaks), so a student's run name could become a
    link on another student's chart. Escaped, Plotly turns the entities back into the
    characters typed."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
