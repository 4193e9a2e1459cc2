"""The 20 seeds in words: the table of each figure's range, and the sentence saying whether
the student's own seed is typical (and, with an expected value, whether chance explains
the gap to it).

The run over the seeds and its wiring into a lab are `labs.catalogue.spread`'s; this module
only says what the seeds gave, in the reader's language.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.text import gettext, gettext_noop, num, nums_apart, phrase, said


def numeric(value: Any) -> bool:
    """A figure with a range: a number, not a yes/no (a bool is an int to Python)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def seed_table(results: list[dict[str, Any]], figures: tuple[Figure, ...]) -> dict[str, Any]:
    """Each numeric figure over the seeds: the student's, the lowest, the median, the highest."""
    rows = []
    for f in figures:
        values = [r["summary"].get(f.name) for r in results]
        if not all(numeric(v) for v in values):
            continue  # a figure that is sometimes None or a word has no range
        # Places enough that different values never read the same; a share in percent.
        shown = nums_apart([values[0], min(values), middle(f, values), max(values)], f.share)
        rows.append([labelled(f), *shown])
    return {
        "title": phrase(gettext_noop("The same settings over %(n)s seeds"), n=len(results)),
        "columns": [
            gettext_noop("figure"),
            gettext_noop("your seed"),
            gettext_noop("lowest"),
            gettext_noop("median"),
            gettext_noop("highest"),
        ],
        "rows": rows,
        # On a phone each figure's name gets a line of its own with its four numbers under
        # it (site.css), so the highest is on the screen too.
        "stack": True,
    }


def middle(figure: Figure, values: list[float]) -> float:
    """The median, one of the seeds' own values for a count (27,673, not 27,673.5 requests)."""
    return statistics.median_low(values) if figure.kind == "int" else statistics.median(values)


def labelled(figure: Figure) -> Any:
    """A figure's label with its unit, as the table's row heading: “p99 wait (ms)”."""
    english = figure.label["msgid"] if isinstance(figure.label, dict) else figure.label
    said_already = re.search(rf"\b{re.escape(figure.unit)}\b", english, re.IGNORECASE)
    if not figure.unit or figure.share or said_already:
        return figure.label  # not "Calls that failed (calls)"
    label = figure.label if isinstance(figure.label, dict) else phrase(figure.label)
    return phrase(gettext_noop("%(figure)s (%(unit)s)"), figure=label, unit=phrase(figure.unit))


def typical_words(result: Mapping[str, Any], figure: Figure) -> list[str]:
    """A sentence saying where the student's seed falls among the 20, or nothing."""
    data = (result.get("tables") or {}).get("seed_spread_data")
    if not data:
        return []
    values = [v for v in data["values"] if numeric(v)]
    own = data["values"][0]
    if not numeric(own) or len(values) < 2:
        return []
    below = sum(1 for v in values if v < own)
    above = sum(1 for v in values if v > own)
    shown = _percent if data.get("percent") else num
    # Read side by side: enough places that different values never read the same.
    low, high, median, own_words = nums_apart(
        [min(values), max(values), middle(figure, values), own], bool(data.get("percent"))
    )
    words = {
        "figure": said(figure.label),
        "n": len(values),
        "low": low,
        "high": high,
        "median": median,
        "own": own_words,
    }
    if min(values) == max(values):
        return [
            gettext(
                "Over %(n)s seeds, “%(figure)s” is %(own)s every time: here chance plays no part."
            )
            % words
        ]
    # Typical: at least 10% of the seeds on each side (2 of 20).
    share = len(values) // 10
    if below >= share and above >= share:
        line = gettext(
            "Over %(n)s seeds, “%(figure)s” ranged from %(low)s to %(high)s (median %(median)s); "
            "your seed's %(own)s is a typical one."
        )
    elif above < share:
        line = gettext(
            "Over %(n)s seeds, “%(figure)s” ranged from %(low)s to %(high)s (median %(median)s); "
            "your seed's %(own)s is among the highest: do not read too much into it."
        )
    else:
        line = gettext(
            "Over %(n)s seeds, “%(figure)s” ranged from %(low)s to %(high)s (median %(median)s); "
            "your seed's %(own)s is among the lowest: do not read too much into it."
        )
    return [line % words, *_against_expected(data.get("expected"), values, own, shown)]


def _percent(value: float) -> str:
    return f"{value:.1%}"


def _against_expected(
    expected: Any, values: list[float], own: float, shown: Callable[[float], str]
) -> list[str]:
    """Whether chance alone explains the gap between the student's seed and the theory:
    it does when the seeds' own range holds the expected value."""
    if not numeric(expected):
        return []
    words = {"expected": shown(expected), "own": shown(own)}
    if min(values) <= expected <= max(values):
        return [
            gettext(
                "The expected %(expected)s lies inside that range: your %(own)s differs from it "
                "by chance alone, not because anything is wrong."
            )
            % words
        ]
    return [
        gettext(
            "The expected %(expected)s lies outside the range of every seed: a gap that "
            "steady is not chance; something in these settings moves the figure."
        )
        % words
    ]
