"""Charts for the phase map: recovered / trapped over spike size x duration, and the threshold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, FAST_FAIL, GREY, INK, OK, figure, line, markers, vline
from labs.text import gettext, gettext_noop, num
from labs.text import gettext as _


def grid(result: Mapping[str, Any], plane: int) -> dict[str, Any]:
    """One heat map: a cell per run, green if it recovered by itself, red if it stayed trapped."""
    g, s = result["tables"]["grid"], result["summary"]
    spikes, durations = g["spike_rps"], g["duration_s"]
    base = g["base_rps"][plane]
    cells = g["recovered"][plane]  # [duration][spike]
    heat = {
        "type": "heatmap",
        "x": spikes,
        "y": durations,
        "z": [[1 if ok else 0 for ok in row] for row in cells],
        "zmin": 0,
        "zmax": 1,
        "colorscale": [[0, FAILED], [0.5, FAILED], [0.5, OK], [1, OK]],
        "showscale": False,
        "xgap": 2,
        "ygap": 2,
        "name": "runs",
        "showlegend": False,
        "text": [
            [cell_words(spike, duration, ok) for spike, ok in zip(spikes, row, strict=True)]
            for duration, row in zip(durations, cells, strict=True)
        ],
        "hoverinfo": "text",
    }
    traces: list[dict[str, Any]] = [heat]
    # Not by colour alone: a ring marks a cell that recovered, a cross one that stayed trapped.
    for ok, name, symbol in (
        (True, gettext_noop("recovered"), "circle-open"),
        (False, gettext_noop("trapped"), "x-thin-open"),
    ):
        at = [
            (spike, duration)
            for duration, row in zip(durations, cells, strict=True)
            for spike, cell in zip(spikes, row, strict=True)
            if cell is ok
        ]
        if at:
            mark = markers([x for x, _ in at], [y for _, y in at], name, color=INK, symbol=symbol)
            mark["marker"]["line"] = {"width": 2, "color": INK}
            mark["hoverinfo"] = "skip"
            traces.append(mark)
    # Where the spike leaves one timeout's worth of extra queue: (spike - capacity) x time.
    capacity, limit = s["capacity_rps"], s["timeout_backlog"]
    curve = [(x, limit / (x - capacity)) for x in _fine(spikes) if x > capacity]
    curve = [(x, y) for x, y in curve if y <= max(durations) * 1.05]
    if curve:
        traces.append(
            line(
                [x for x, _ in curve],
                [y for _, y in curve],
                gettext("%(n)s extra requests (one timeout's worth of queue)") % {"n": num(limit)},
                color=INK,
                dash="dash",
            )
        )
    title = _("Green ○: recovered by itself. Red ×: stayed trapped.")
    if len(g["base_rps"]) > 1:
        title += " " + gettext("Normal load %(rate)s/s.") % {"rate": num(base)}
    fig = figure(
        title=title,
        x_title=gettext_noop("spike size (new requests per second)"),
        y_title=gettext_noop("spike duration (s)"),
        traces=traces,
        hovermode="closest",
    )
    fig["layout"]["yaxis"].pop("rangemode")
    fig["layout"]["showlegend"] = True  # name the dashed line and the cells' marks
    return fig


def cell_words(spike: float, duration: float, recovered: bool) -> str:
    """A cell's hover text: the spike, and whether the service recovered from it."""
    words = (
        gettext("%(spike)s/s for %(s)s s: recovered")
        if recovered
        else gettext("%(spike)s/s for %(s)s s: trapped")
    )
    return words % {"spike": num(spike), "s": num(duration)}


def _fine(values: list[float], steps: int = 60) -> list[float]:
    low, high = min(values), max(values)
    if high == low:
        return [low]
    return [low + (high - low) * i / steps for i in range(steps + 1)]


def threshold(result: Mapping[str, Any]) -> dict[str, Any]:
    """Every run by the extra work its spike left, and the backlog it ended with."""
    rows, s = result["series"], result["summary"]
    traces = []
    for ok, name, colour, symbol in (
        (True, gettext_noop("recovered"), OK, "circle"),
        (False, gettext_noop("trapped"), FAILED, "x"),
    ):
        picked = [i for i, r in enumerate(rows["recovered"]) if r is ok]
        traces.append(
            markers(
                [rows["excess_requests"][i] for i in picked],
                [rows["final_backlog"][i] for i in picked],
                name,
                color=colour,
                symbol=symbol,
                size=8,
                text=[
                    gettext(
                        "%(spike)s/s for %(s)s s (normal %(base)s/s): %(outcome)s, backlog at the "
                        "end %(backlog)s"
                    )
                    % {
                        "spike": num(rows["spike_rps"][i]),
                        "s": num(rows["duration_s"][i]),
                        "base": num(rows["base_rps"][i]),
                        "outcome": gettext(name),
                        "backlog": num(rows["final_backlog"][i]),
                    }
                    for i in picked
                ],
            )
        )
    shape, note = vline(s["timeout_backlog"], gettext_noop("one timeout's worth of queue"), GREY)
    return figure(
        title=gettext_noop("Extra work each spike left vs the backlog at the end of its run"),
        x_title=gettext_noop("extra requests = (spike - capacity) x duration"),
        y_title=gettext_noop("backlog at the end"),
        traces=traces,
        shapes=[shape],
        annotations=[note],
        hovermode="closest",
    )


def seed_share(result: Mapping[str, Any], plane: int) -> dict[str, Any]:
    """The 10-seed view: per cell, the share of seeds that left it trapped, its count as text."""
    g, counts = result["tables"]["grid"], result["tables"]["seed_counts"]
    spikes, durations = g["spike_rps"], g["duration_s"]
    n = len(counts["seeds"])
    trapped = counts["trapped"][plane]  # [duration][spike]
    heat = {
        "type": "heatmap",
        "x": spikes,
        "y": durations,
        "z": [[round(100 * k / n) for k in row] for row in trapped],
        "zmin": 0,
        "zmax": 100,
        "colorscale": [[0, OK], [0.5, FAST_FAIL], [1, FAILED]],
        # No colour bar: it squeezes the map off a phone, and every cell says its count.
        "showscale": False,
        "xgap": 2,
        "ygap": 2,
        "name": "seeds",
        "showlegend": False,
        # The count in every cell, so the colour is never the only sign.
        "text": [[f"{k}/{n}" for k in row] for row in trapped],
        "texttemplate": "%{text}",
        "hovertext": [
            [
                gettext("%(spike)s/s for %(s)s s: trapped in %(k)s of %(n)s seeds")
                % {"spike": num(spike), "s": num(duration), "k": num(k), "n": num(n)}
                for spike, k in zip(spikes, row, strict=True)
            ]
            for duration, row in zip(durations, trapped, strict=True)
        ],
        "hoverinfo": "text",
    }
    title = gettext("Trapped in how many of %(n)s seeds (%(first)s–%(last)s)") % {
        "n": num(n),
        "first": counts["seeds"][0],
        "last": counts["seeds"][-1],
    }
    if len(g["base_rps"]) > 1:
        title += " " + gettext("Normal load %(rate)s/s.") % {"rate": num(g["base_rps"][plane])}
    fig = figure(
        title=title,
        x_title=gettext_noop("spike size (new requests per second)"),
        y_title=gettext_noop("spike duration (s)"),
        traces=[heat],
        hovermode="closest",
    )
    fig["layout"]["yaxis"].pop("rangemode")
    return fig


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    planes = range(len(result["tables"]["grid"]["base_rps"]))
    maps = [grid(result, i) for i in planes]
    if "seed_counts" in result["tables"]:
        maps += [seed_share(result, i) for i in planes]
    return [*maps, threshold(result)]
