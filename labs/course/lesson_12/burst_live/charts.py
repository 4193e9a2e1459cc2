"""Charts for the burst on real queues: real backlog and oldest age beside the simulation.

The simulation of the same input (`labs.course.lesson_12.burst_live.run.simulated`) is handed in: a
chart draws, it does not run models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.base import COLORS, GREY, figure, line
from labs.charts.live import rows as as_rows
from labs.charts.live import with_age_axis
from labs.text import gettext, gettext_noop

POLICY_COLOURS = {"fixed": GREY, "scaled": COLORS["workers"]}
POLICY_NAMES = {"fixed": gettext_noop("fixed pool"), "scaled": gettext_noop("scaled on backlog")}


def backlog(samples: Sequence[Mapping[str, Any]], sim: Mapping[str, list[Any]], title: str):
    """Real backlog (lines) and oldest age (right axis) beside the simulated backlog (dots)."""
    x = [s.get("second") for s in samples]
    traces = []
    for p in ("fixed", "scaled"):
        colour, name = POLICY_COLOURS[p], {"policy": gettext(POLICY_NAMES[p])}
        traces += [
            line(
                x,
                [s.get(f"backlog_{p}") for s in samples],
                gettext("%(policy)s: real backlog") % name,
                color=colour,
            ),
            line(
                sim["second"],
                sim[f"backlog_{p}"],
                gettext("%(policy)s: simulated backlog") % name,
                color=colour,
                dash="dash",
                with_markers=True,
            ),
            line(
                x,
                [s.get(f"oldest_age_lesson_s_{p}") for s in samples],
                gettext("%(policy)s: oldest message age (right axis)") % name,
                color=colour,
                dash="dot",
                yaxis="y2",
            ),
        ]
    fig = figure(
        title=title,
        x_title=gettext_noop("lesson second"),
        y_title=gettext_noop("jobs waiting"),
        traces=traces,
        height=420,
    )
    return with_age_axis(fig, gettext_noop("oldest message age (lesson s)"))


def workers(samples: Sequence[Mapping[str, Any]], sim: Mapping[str, list[Any]]):
    x = [s.get("second") for s in samples]
    traces = []
    for p in ("fixed", "scaled"):
        colour, name = POLICY_COLOURS[p], {"policy": gettext(POLICY_NAMES[p])}
        traces += [
            line(
                x,
                [s.get(f"workers_{p}") for s in samples],
                gettext("%(policy)s: real workers") % name,
                color=colour,
                shape="hv",
            ),
            line(
                [s - 1 for s in sim["second"]],
                sim[f"workers_{p}"],
                gettext("%(policy)s: simulated workers") % name,
                color=colour,
                dash="dash",
                shape="hv",
            ),
        ]
    return figure(
        title=gettext_noop("Workers running: the controller read the real queue's depth"),
        x_title=gettext_noop("lesson second"),
        y_title=gettext_noop("workers"),
        traces=traces,
        height=320,
    )


def live_chart(samples: Sequence[Mapping[str, Any]], sim: Mapping[str, list[Any]]):
    return backlog(
        samples, sim, gettext_noop("Live: the real backlogs, with the simulation of the same input")
    )


def build(result: Mapping[str, Any], sim: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    samples = as_rows(result["series"])
    return [
        backlog(
            samples,
            sim,
            gettext_noop("Backlog and oldest message: real queues against the simulation"),
        ),
        workers(samples, sim),
    ]
