"""Charts for the shared breaker on a real queue: its real state timeline over the queue."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pybreaker

from labs.charts import live
from labs.charts.base import FAILED, FAST_FAIL, figure, line, window
from labs.text import gettext_noop

LEVEL = {pybreaker.STATE_CLOSED: 0, pybreaker.STATE_HALF_OPEN: 1, pybreaker.STATE_OPEN: 2}
# The states as pybreaker names them (Latin script in both languages, like the lesson).
STATE_AXIS = {"tickvals": [0, 1, 2], "ticktext": ["closed", "half-open", "open"]}
LINES = tuple(entry for entry in live.QUEUE_LINES if entry[0] != "duplicates_delivered")


def _stacked(
    samples: Sequence[Mapping[str, Any]],
    state_x: Sequence[float],
    state_y: Sequence[int],
    down: tuple[float, float] | None,
    title: str,
) -> dict[str, Any]:
    """The breaker's state on top, the queue under it, one time axis."""
    t = [s.get("t_s") for s in samples]
    traces = [
        line(t, [s.get(key) for s in samples], name, color=colour, dash=dash)
        for key, name, colour, dash in LINES
        if any(key in s for s in samples)
    ]
    traces.append(
        line(
            state_x, state_y, gettext_noop("breaker state"), color=FAST_FAIL, shape="hv", yaxis="y2"
        )
    )
    shapes, notes = [], []
    if down is not None:
        shape, note = window(down[0], down[1], gettext_noop("service down"), color=FAILED)
        shapes, notes = [shape], [note]
    fig = figure(
        title=title,
        x_title=gettext_noop("seconds since the first payment"),
        y_title=gettext_noop("messages"),
        traces=traces,
        shapes=shapes,
        annotations=notes,
        height=440,
    )
    fig["layout"]["yaxis"]["domain"] = [0, 0.62]
    fig["layout"]["yaxis"]["automargin"] = True
    fig["layout"]["yaxis2"] = {
        "domain": [0.72, 1],
        "range": [-0.3, 2.3],
        "title": {"text": "breaker"},
        "automargin": True,  # room for "half-open" and the title beside it
        **STATE_AXIS,
    }
    return fig


def _down_from_samples(samples: Sequence[Mapping[str, Any]]) -> tuple[float, float] | None:
    down: list[Any] = [s.get("t_s") for s in samples if s.get("service_down")]
    return (down[0], down[-1]) if down else None


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    """While it runs: the state each reading saw, and the queue."""
    times: list[Any] = [s.get("t_s") for s in samples]
    return _stacked(
        samples,
        times,
        [LEVEL.get(str(s.get("breaker_state")), 0) for s in samples],
        _down_from_samples(samples),
        gettext_noop("Live: the shared breaker and the queue"),
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    samples = live.rows(result["series"])
    s = result["summary"]
    timeline = result["tables"]["timeline"]
    end = samples[-1]["t_s"] if samples else 0
    # The real timeline: closed from the start, then every change the workers made.
    xs = [0.0] + [row["t_s"] for row in timeline] + [end]
    ys = [0] + [LEVEL[row["state"]] for row in timeline]
    ys.append(ys[-1])
    return [
        _stacked(
            samples,
            xs,
            ys,
            (s["down_from_s"], s["down_until_s"]),
            gettext_noop("The breaker's real state changes (top) and the queue (bottom)"),
        )
    ]
