"""The chart of a real queue over time: what the live view draws, and the result shows again.

The same builder takes live samples (a list of readings) or a finished run's series
(columns), so the chart a student watched grow is the chart they keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import BLUE, COLORS, FAILED, FAST_FAIL, GREY, OK, figure, line, right_axis
from labs.text import gettext_noop

# (key, name, colour, dash) of each count drawn against the left axis.
QUEUE_LINES = (
    ("visible", gettext_noop("visible (waiting)"), COLORS["backlog"], None),
    ("in_flight", gettext_noop("in flight"), BLUE, None),
    ("dlq_depth", gettext_noop("DLQ depth"), FAILED, None),
    ("done", gettext_noop("done"), OK, None),
    ("duplicates_delivered", gettext_noop("duplicates delivered"), FAST_FAIL, "dash"),
    ("duplicate_effects", gettext_noop("duplicate effects"), FAILED, "dot"),
)


def rows(series: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """A result's series (equal-length columns) as a list of samples."""
    names = list(series)
    return [dict(zip(names, values, strict=True)) for values in zip(*series.values(), strict=True)]


def with_age_axis(
    fig: dict[str, Any], title: str = gettext_noop("oldest message age (s)")
) -> dict[str, Any]:
    """Add a right-hand axis for ages, so seconds and message counts share one chart."""
    right_axis(fig, title)
    return fig


def queue(
    samples: Sequence[Mapping[str, Any]],
    *,
    title: str = gettext_noop("The real queue, reading by reading"),
    lines: Sequence[tuple[str, str, str, str | None]] = QUEUE_LINES,
    extra: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """Counts over time on the left axis, the oldest message's age on the right."""
    t = [s.get("t_s") for s in samples]
    traces = [
        line(t, [s.get(key) for s in samples], name, color=colour, dash=dash)
        for key, name, colour, dash in lines
        if any(key in s for s in samples)
    ]
    if any(s.get("oldest_age_s") is not None for s in samples):
        traces.append(
            line(
                t,
                [s.get("oldest_age_s") for s in samples],
                gettext_noop("oldest message age (s, right axis)"),
                color=GREY,
                dash="dot",
                yaxis="y2",
            )
        )
    fig = figure(
        title=title,
        x_title=gettext_noop("seconds since the run started"),
        y_title=gettext_noop("messages"),
        traces=[*traces, *extra],
        height=360,
    )
    return with_age_axis(fig)
