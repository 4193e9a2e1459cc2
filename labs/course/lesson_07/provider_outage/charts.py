"""Charts for the provider outage: the queue through the outage, the oldest job's age against
the alarm's threshold, and the provider's refusals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import COLORS, FAILED, GREY, OK, figure, hline, sampled, vline, window
from labs.charts.live import rows
from labs.text import gettext_noop

MINUTE = gettext_noop("lesson minute")


def _outage(params: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if not params.get("down_for_min"):
        return [], []
    start = params["down_from_min"]
    shape, note = window(start, start + params["down_for_min"], gettext_noop("provider down"))
    return [shape], [note]


def queue_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    draw = sampled(samples, "t_min")
    shapes, notes = _outage(params)
    return figure(
        title=gettext_noop("The queue while the provider is down"),
        x_title=MINUTE,
        y_title=gettext_noop("jobs"),
        traces=[
            draw("visible", gettext_noop("waiting"), color=COLORS["backlog"], fill=True),
            draw("done", gettext_noop("sent"), color=OK),
            draw("dlq_depth", gettext_noop("in the DLQ"), color=FAILED, dash="dot"),
        ],
        shapes=shapes,
        annotations=notes,
        height=340,
    )


def age_chart(
    samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any], summary: Mapping[str, Any]
) -> dict[str, Any]:
    draw = sampled(samples, "t_min")
    shapes, notes = _outage(params)
    level, level_note = hline(params["alarm_age_min"], gettext_noop("alarm threshold"), FAILED)
    shapes, notes = [*shapes, level], [*notes, level_note]
    for key, label in (
        ("alarm_fired_min", gettext_noop("alarm")),
        ("alarm_cleared_min", gettext_noop("OK again")),
    ):
        if summary.get(key) is not None:
            mark, mark_note = vline(summary[key], label, FAILED if key == "alarm_fired_min" else OK)
            shapes.append(mark)
            notes.append(mark_note)
    return figure(
        title=gettext_noop("Age of the oldest job (the alarm's metric)"),
        x_title=MINUTE,
        y_title=gettext_noop("minutes"),
        traces=[draw("oldest_age_min", gettext_noop("oldest job"), color=COLORS["backlog"])],
        shapes=shapes,
        annotations=notes,
        height=320,
    )


def refusals_chart(
    samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> dict[str, Any]:
    draw = sampled(samples, "t_min")
    return figure(
        title=gettext_noop("Calls refused with 429 (total)"),
        x_title=MINUTE,
        y_title=gettext_noop("calls"),
        traces=[draw("throttled", gettext_noop("429 Too Many Requests"), color=GREY)],
        height=260,
    )


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    return queue_chart(samples, params)


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    samples = rows(result["series"])
    charts = [
        queue_chart(samples, result["params"]),
        age_chart(samples, result["params"], result["summary"]),
    ]
    if result["summary"]["throttled"]:
        charts.append(refusals_chart(samples, result["params"]))
    return charts
