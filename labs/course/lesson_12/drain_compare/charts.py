"""Charts for the drain comparison: every rule's backlog and workers on one chart each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import figure, line
from labs.text import gettext_noop, said

# Rules often share a line (a higher ceiling the rule never reaches changes nothing),
# so each gets its own dash and the hidden one still shows through.
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    per_second = result["tables"]["per_second"]
    words = result["tables"].get("rule_words", {})  # a rule's label, as a phrase
    x = per_second["second"]
    backlog = figure(
        title=gettext_noop("Jobs waiting, one line per rule"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("jobs waiting"),
        traces=_lines(x, per_second["backlog"], words),
    )
    workers = figure(
        title=gettext_noop("Workers running, one line per rule"),
        x_title=gettext_noop("second"),
        y_title=gettext_noop("workers"),
        traces=_lines(x, per_second["workers"], words, shape="hv"),
        height=300,
    )
    return [backlog, workers]


def _lines(
    x: list[int],
    by_rule: Mapping[str, list[int]],
    words: Mapping[str, Any],
    shape: str = "linear",
) -> list[dict]:
    return [
        line(x, ys, said(words.get(rule, rule)), shape=shape, dash=DASHES[i % len(DASHES)])
        for i, (rule, ys) in enumerate(by_rule.items())
    ]
