"""Charts for the trapped service run live: the capstone's charts, the switches, the model.

Every chart is the simulated lab's (`labs.course.assignment_05.trapped_service.charts`)
drawn from the live series, with each control switched marked where it happened, plus
the answered requests' wait (p50 / p99) and the model's backlog for the same params
beside the real one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import (
    COLORS,
    GREY,
    OK,
    TEAL,
    figure,
    line,
    right_axis,
    sampled,
    vline,
    window,
)
from labs.charts.live import rows as as_rows
from labs.course.assignment_05.trapped_service import charts as model_charts
from labs.text import gettext_noop, said

AGE = model_charts.AGE
SWITCH = TEAL


def _switches(timeline: Sequence[Mapping[str, Any]]) -> tuple[list, list]:
    shapes, notes = [], []
    for event in timeline:
        # The runner saved each switch in words (`words`); a live sample has its label only.
        words = said(event.get("words") or event["label"])
        shape, note = vline(event["t_s"], words, color=SWITCH if event["on"] else GREY)
        shapes.append(shape)
        notes.append(note)
    return shapes, notes


def _marks(params: Mapping[str, Any], timeline: Sequence[Mapping[str, Any]]):
    shape, note = window(
        params["trigger_start_s"], params["trigger_end_s"], gettext_noop("trigger")
    )
    shapes, notes = _switches(timeline)
    return [shape, *shapes], [note, *notes]


def _flow_lines(samples: Sequence[Mapping[str, Any]], names: tuple[str, str, str, str]) -> list:
    """New requests, retries, useful and wasted answers a second, each in its colour; the
    flows chart and the live chart draw the same four, named for where they stand."""
    draw = sampled(samples, "second")
    arrivals, retries, useful, wasted = names
    return [
        draw("arrivals", arrivals, color=COLORS["arrived"]),
        draw("retries", retries, color=COLORS["retries"]),
        draw("useful", useful, color=OK),
        draw("wasted", wasted, color=model_charts.FAILED, dash="dot"),
    ]


def flows(samples: Sequence[Mapping[str, Any]], params, timeline, title: str) -> dict:
    shapes, notes = _marks(params, timeline)
    return figure(
        title=title,
        x_title=gettext_noop("simulated second"),
        y_title=gettext_noop("requests per second"),
        traces=_flow_lines(
            samples,
            (
                gettext_noop("new requests"),
                gettext_noop("retries"),
                gettext_noop("useful (caller still waiting)"),
                gettext_noop("wasted (caller gone)"),
            ),
        ),
        shapes=shapes,
        annotations=notes,
    )


def backlog(samples, params, timeline, title: str, *, model: bool = True) -> dict:
    draw = sampled(samples, "second")
    shapes, notes = _marks(params, timeline)
    traces = [
        draw("backlog", gettext_noop("backlog (real)"), color=COLORS["backlog"], fill=True),
        draw("oldest_age_s", gettext_noop("age of the oldest request (s)"), color=AGE, yaxis="y2"),
    ]
    if model and any("model_backlog" in s for s in samples):
        traces.insert(
            1, draw("model_backlog", gettext_noop("backlog in the model"), color=GREY, dash="dash")
        )
    fig = figure(
        title=title,
        x_title=gettext_noop("simulated second"),
        y_title=gettext_noop("requests waiting or in service"),
        traces=traces,
        shapes=shapes,
        annotations=notes,
    )
    right_axis(fig, gettext_noop("seconds"))
    return fig


def latency(samples, params, timeline) -> dict:
    draw = sampled(samples, "second")
    shapes, notes = _marks(params, timeline)
    return figure(
        title=gettext_noop(
            "How long answered requests waited (a gap: nobody was answered that second)"
        ),
        x_title=gettext_noop("simulated second"),
        y_title=gettext_noop("ms (simulated)"),
        traces=[
            draw("latency_p50_ms", gettext_noop("median (p50)"), color=OK),
            draw("latency_p99_ms", "p99", color=AGE, dash="dash"),
        ],
        shapes=shapes,
        annotations=notes,
    )


def _switched(sample: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(label, words) of each switch in a live sample; words are None in an older sample."""
    labels = [label for label in (sample.get("switched") or "").split("; ") if label]
    words = sample.get("switched_words") or []
    return [(label, words[i] if i < len(words) else None) for i, label in enumerate(labels)]


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict:
    """While the run goes, one chart: the flows and the queue (left), the ages (right).

    Left: new requests, retries, useful and wasted answers a second, and the backlog.
    Right, in seconds: the oldest request's age and the p50 / p99 wait of the answered
    ones. Every switch so far is a vertical line labelled with what it did.
    """
    timeline = [
        {"t_s": s["second"], "label": label, "on": " on" in label, "words": words}
        for s in samples
        for label, words in _switched(s)
    ]
    fig = backlog(
        samples,
        params,
        timeline,
        gettext_noop("Live: the flows, the queue and how long callers wait"),
        model=False,
    )
    x = [s.get("second") for s in samples]

    def seconds(key: str) -> list[float | None]:
        return [None if s.get(key) is None else s[key] / 1000.0 for s in samples]

    fig["data"] += [
        *_flow_lines(
            samples,
            (
                gettext_noop("new requests a second"),
                gettext_noop("retries a second"),
                gettext_noop("useful answers a second"),
                gettext_noop("wasted answers a second"),
            ),
        ),
        line(
            x,
            seconds("latency_p50_ms"),
            gettext_noop("wait of answered, p50 (s, right)"),
            color=GREY,
            yaxis="y2",
        ),
        line(
            x,
            seconds("latency_p99_ms"),
            gettext_noop("wait of answered, p99 (s, right)"),
            color=AGE,
            dash="dash",
            yaxis="y2",
        ),
    ]
    fig["layout"]["height"] = 460
    return fig


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    samples = as_rows(result["series"])
    params = result["tables"].get("effective_params", result["params"])
    timeline = result["tables"].get("timeline_data", [])
    return [
        flows(
            samples,
            params,
            timeline,
            gettext_noop("Each second: new requests, retries, useful and wasted"),
        ),
        backlog(
            samples,
            params,
            timeline,
            gettext_noop("Backlog (left, with the model's) and the oldest request's age (right)"),
        ),
        latency(samples, params, timeline),
        model_charts.payments({**result, "params": params}),
    ]
