"""Charts for retries on a real queue: which try worked, and the queue over time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts import live
from labs.charts.base import FAILED, GREY, OK, TEAL, bar, figure
from labs.text import gettext, gettext_noop

LINES = (*live.QUEUE_LINES, ("receives", gettext_noop("receives"), TEAL, "dash"))


def attempts(result: Mapping[str, Any]) -> dict[str, Any]:
    rows = result["tables"]["attempts"]["rows"]
    labels = [
        gettext("try %(n)s") % {"n": r[0]} if isinstance(r[0], int) else gettext(str(r[0]))
        for r in rows
    ]
    colours = [OK if isinstance(r[0], int) else FAILED for r in rows]
    measured = bar(
        labels, [r[1] for r in rows], gettext_noop("measured"), text=[r[1] for r in rows]
    )
    measured["marker"] = {"color": colours}
    return figure(
        title=gettext_noop("Receives by the try that worked (the last bar: every try failed)"),
        x_title="", y_title=gettext_noop("receives"),
        traces=[measured, bar(labels, [r[2] for r in rows],
                              gettext_noop("expected"), color=GREY)],
        barmode="group", x_category=True, hovermode="closest",
    )  # fmt: skip


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    return live.queue(
        samples, title=gettext_noop("Live: the queue while fees are charged"), lines=LINES
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        attempts(result),
        live.queue(
            live.rows(result["series"]), title=gettext_noop("The queue over time"), lines=LINES
        ),
    ]
