"""Charts for poison messages on a real queue: the lesson's counts, and the queues over time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from labs.charts import live
from labs.charts.base import COLORS, FAILED, NOTE_BACKGROUND, OK, bar, figure
from labs.text import gettext_noop

LINES = (
    *(entry for entry in live.QUEUE_LINES if entry[0] != "duplicate_effects"),
    ("receives", gettext_noop("receives"), COLORS["arrived"], "dash"),
)


def counts(result: Mapping[str, Any]) -> dict[str, Any]:
    rows = result["tables"]["counts"]["rows"]
    # The setting's name once, as the axis's title; each bar group is its value (on a phone
    # "maxReceiveCount 5" under every group turned sideways into the legend).
    labels = [str(r[0]) for r in rows]
    return figure(
        title=gettext_noop("Made, parked and received, for each maxReceiveCount"),
        x_title="maxReceiveCount",
        y_title=gettext_noop("messages / receives"),
        traces=[
            bar(
                labels,
                [r[1] for r in rows],
                gettext_noop("made"),
                color=OK,
                text=[r[1] for r in rows],
            ),
            bar(
                labels,
                [r[2] for r in rows],
                gettext_noop("in the DLQ"),
                color=FAILED,
                text=[r[2] for r in rows],
            ),
            bar(
                labels,
                [r[3] for r in rows],
                gettext_noop("receives"),
                color=COLORS["arrived"],
                text=[r[3] for r in rows],
            ),
        ],
        barmode="group",
        x_category=True,
        hovermode="closest",
    )


def _parts(samples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A label at the top of each maxReceiveCount's queue, where it starts."""
    notes: list[dict[str, Any]] = []
    position = 0
    for mr, part in groupby(samples, key=lambda s: s.get("max_receives")):
        first = samples[position]
        position += len(list(part))
        notes.append(
            {
                "x": first.get("t_s"),
                # Each a step below the one before (three steps, one per value the lab
                # runs): on a phone a label is wider than its queue, and two at one height
                # met, the later one pushed up into the title.
                "y": 0.97 - 0.17 * (len(notes) % 3),
                "xref": "x",
                "yref": "paper",
                "xanchor": "left",
                # Inside the plot: above it, a phone's wrapped title ran into the note.
                "yanchor": "top",
                "bgcolor": NOTE_BACKGROUND,
                "text": f"maxReceiveCount {mr}",
                "showarrow": False,
            }
        )
    return notes


def queues(samples: Sequence[Mapping[str, Any]], title: str) -> dict[str, Any]:
    fig = live.queue(samples, title=title, lines=LINES)
    fig["layout"]["annotations"] = _parts(samples)
    return fig


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    return queues(samples, gettext_noop("Live: each maxReceiveCount's queue in turn"))


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        counts(result),
        queues(live.rows(result["series"]), gettext_noop("The three queues, one after the other")),
    ]
