"""The class results page's charts and their numbers, from `ClassResults`.

The drawing is `labs.charts.class_view`'s; this module only picks what each chart gets
(labels, the lesson's case, the criteria's bounds) and says axes in the reader's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from labs.catalogue.lab import Lab
from labs.charts import class_view
from labs.charts.base import OK
from labs.charts.class_view import Mark, StudentLine
from labs.text import num, said
from labs.web.series_names import named
from teaching.class_results.figures import ClassResults, Entry, Spread
from teaching.criteria import Criterion
from teaching.criteria_words import criterion_words

# The overlay's axis, where the series' own key reads poorly.
LINE_WORDS = {"backlog": gettext_noop("requests waiting (backlog)")}
BOUND_COLOUR = OK
SMALL_W, SMALL_H = 160, 48


def series_words(key: str, lab: Lab) -> str:
    return _(LINE_WORDS[key]) if key in LINE_WORDS else named(key, lab)


def line_of(entry: Entry) -> StudentLine | None:
    trace = entry.digest.trace if entry.digest else None
    if not trace or not trace.get("x"):
        return None
    return StudentLine(entry.label, trace["x"], trace["y"])


def axis_keys(results: ClassResults) -> tuple[str, str] | None:
    for entry in results.handed_in:
        trace = entry.digest.trace
        if trace.get("x_key"):
            return trace["x_key"], trace["y_key"]
    return None


def overlay_chart(results: ClassResults) -> dict[str, Any] | None:
    """Every handed-in run's main line on one chart, with the lesson's case."""
    keys = axis_keys(results)
    lines = [line for e in results.handed_in if (line := line_of(e)) is not None]
    if keys is None or not lines:
        return None
    x_key, y_key = keys
    reference = None
    if results.reference and results.reference["x"]:
        reference = StudentLine("", results.reference["x"], results.reference["y"])
    return class_view.overlay(
        lines,
        title=_("Every run handed in: %(series)s") % {"series": series_words(y_key, results.lab)},
        x_title=series_words(x_key, results.lab),
        y_title=series_words(y_key, results.lab),
        reference=reference,
    )


@dataclass
class Small:
    """One student's small chart: an SVG line on the class's shared axes."""

    entry: Entry
    points: str
    peak: Any


def small_multiples(results: ClassResults) -> tuple[list[Small], int, int]:
    """Every student's small chart, on one x span and one y top so they compare."""
    drawn = [(e, line) for e in results.handed_in if (line := line_of(e)) is not None]
    numbers = [v for _e, line in drawn for v in line.x if isinstance(v, int | float)] or [0, 1]
    tops = [v for _e, line in drawn for v in line.y if isinstance(v, int | float)] or [1]
    span, top = (min(numbers), max(numbers)), max(tops)
    smalls = [
        Small(
            entry,
            class_view.sparkline(line.x, line.y, span, top, width=SMALL_W, height=SMALL_H),
            max((v for v in line.y if isinstance(v, int | float)), default=None),
        )
        for entry, line in drawn
    ]
    return smalls, SMALL_W, SMALL_H


def marks_of(spread: Spread, results: ClassResults) -> list[Mark]:
    marks = []
    if spread.reference is not None:
        marks.append(
            Mark(
                spread.reference,
                _("lesson's case: %(amount)s") % {"amount": num(spread.reference)},
            )
        )
    for criterion in spread.bounds:
        marks.append(
            Mark(
                float(criterion.value),
                _("criterion %(check)s")
                % {"check": f"{criterion.op} {num(float(criterion.value))}"},
                BOUND_COLOUR,
            )
        )
    return marks


def spread_chart(spread: Spread, results: ClassResults) -> dict[str, Any] | None:
    if not spread.points:
        return None
    unit = said(spread.figure.unit) if spread.figure.unit else ""
    return class_view.spread(
        spread.points,
        title=said(spread.figure.label),
        unit=unit,
        marks=marks_of(spread, results),
        outliers=spread.outliers,
    )


def pass_rate_chart(results: ClassResults) -> dict[str, Any] | None:
    if not results.pass_rates or not results.handed_in:
        return None
    return class_view.pass_rates(
        [(criterion_label(r.criterion, results.lab), r.passed, r.total) for r in results.pass_rates]
    )


def criterion_label(criterion: Criterion, lab: Lab | None) -> str:
    """A criterion as the class reads it (the projector is the room's): in the lab's words."""
    if lab is None:
        return str(criterion)
    return criterion_words(criterion, lab.figures)


def changes_chart(results: ClassResults) -> dict[str, Any] | None:
    if not results.changes:
        return None
    return class_view.changed_counts(
        [(c.label, c.count) for c in results.changes], len(results.handed_in)
    )


def line_rows(results: ClassResults) -> list[dict[str, Any]]:
    """The overlay's numbers for a table: each line's highest and last value."""
    rows = []
    for entry in results.handed_in:
        line = line_of(entry)
        ys = [v for v in (line.y if line else ()) if isinstance(v, int | float)]
        rows.append(
            {
                "label": entry.label,
                "peak": max(ys, default=None),
                "last": ys[-1] if ys else None,
            }
        )
    if results.reference and results.reference["y"]:
        ys = [v for v in results.reference["y"] if isinstance(v, int | float)]
        rows.append(
            {"label": _("the lesson's case"), "peak": max(ys, default=None), "last": ys[-1]}
        )
    return rows
