"""Small helpers the runners share: display tables, JSON-safe numbers, cross-field checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from labs.text import gettext


def table(
    title: str | dict[str, Any], columns: Sequence[Any], rows: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """A table the run page shows under the headline (see `labs.web.presenters.shown_tables`).

    Title, headings and word cells are English msgids (`gettext_noop`), or `phrase`s when
    a number sits inside the words: the page says them in the reader's language.
    """
    width = len(columns)
    if any(len(row) != width for row in rows):
        raise ValueError(f"every row of table {title!r} needs {width} cells")
    return {"title": title, "columns": list(columns), "rows": [list(row) for row in rows]}


def finite(value: float | None) -> float | None:
    """The value, or None for NaN and infinity, which JSON cannot hold."""
    if value is None or math.isnan(value) or math.isinf(value):
        return None
    return value


def outage_errors(params: Mapping[str, Any]) -> dict[str, str]:
    """An outage window [down_from_s, down_until_s) must be non-empty and start in the run."""
    errors = {}
    start, end = params["down_from_s"], params["down_until_s"]
    if end <= start:
        errors["down_until_s"] = gettext(
            "The outage must end after it starts: it starts at second %(start)s, so it must "
            "end at second %(next)s or later."
        ) % {"start": start, "next": start + 1}
    if start >= params["duration_s"]:
        errors["down_from_s"] = gettext(
            "The outage must start before the watching ends (second %(end)s)."
        ) % {"end": params["duration_s"]}
    return errors


def model_errors(build: Callable[..., Any], params: Mapping[str, Any]) -> dict[str, str]:
    """The model's own cross-field refusal, put next to the field it names.

    The capstone models raise ValueError starting with the param's name ("trigger_end_s
    must be >= ..."), so the form shows the model's rule rather than a copy of it.
    A message that names no param goes at the top of the form.
    """
    try:
        build(**params)
    except ValueError as exc:
        message = str(exc)
        first = message.split(" ", 1)[0]
        field = first if first in params else "__all__"
        return {field: message}
    return {}


def past_the_last(numbers: Iterable[int], last: int) -> list[int]:
    """The numbers a list names beyond the last thing of the run (things numbered 1 to
    `last`), each once, in increasing order.

    A list such as "payments delivered again: 2, 4, 4" stays as the student typed it when
    the count beside it moves down (a slider's first step, 4 to 3): the run leaves these
    numbers out and its headline says so, instead of refusing the count.
    """
    return sorted({n for n in numbers if n > last})
