"""Charts for the drain lab: the backlog over time, with arrivals, work done and workers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import COLORS, figure, line
from labs.text import gettext, gettext_noop


def rule_words(params: Mapping[str, Any]) -> str:
    """The run's worker rule in the reader's words ("fixed 3", "1 per 100 waiting, ...")."""
    if params.get("rule") == "fixed":
        return gettext("fixed %(n)s") % {"n": params["fixed_workers"]}
    return gettext("1 per %(k)s waiting, min %(low)s, max %(high)s") % {
        "k": params["per_waiting"],
        "low": params["min_workers"],
        "high": params["max_workers"],
    }


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = s["second"]
    jobs = figure(
        title=gettext("Jobs per second — %(rule)s") % {"rule": rule_words(result["params"])},
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs"),
        traces=[
            line(x, s["arrived"], gettext_noop("arrived"), dash="dot", color=COLORS["arrived"]),
            line(x, s["done"], gettext_noop("done"), color=COLORS["done"]),
            line(
                x,
                s["backlog"],
                gettext_noop("waiting (backlog)"),
                fill=True,
                color=COLORS["backlog"],
            ),
        ],
    )
    workers = figure(
        title=gettext_noop("Workers running"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("workers"),
        traces=[
            line(x, s["workers"], gettext_noop("workers"), shape="hv", color=COLORS["workers"])
        ],
        height=260,
    )
    return [jobs, workers]
