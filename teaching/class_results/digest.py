"""Each hand-in's figures, settings and main line, kept once when it is saved.

`teaching.models.Submission.save` records them (`Submission.record_digest`, from
`digest_fields` here) each time the handed-in runs are written.

The class results page reads these (`SubmissionDigest`) rather than the runs' results, so
its cost does not grow with the size of each result, and a view never works them out again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts.class_view import main_series

# Enough points for a line 1,000 px wide to look like the run; a 300 s run keeps every 2nd.
MAX_POINTS = 150


def thinned(values: Sequence[Any], most: int = MAX_POINTS) -> list[Any]:
    """Every k-th value (k the smallest stride that keeps at most `most`), and the last."""
    if len(values) <= most:
        return list(values)
    stride = math.ceil(len(values) / (most - 1))
    kept = list(values[::stride])
    if (len(values) - 1) % stride:
        kept.append(values[-1])
    return kept


def main_line(lab: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """The lab's main series of one result, thinned; {} when the result has none."""
    series = result.get("series") or {}
    order = result.get("series_order") or list(series)
    keys = main_series(lab, order)
    if keys is None or not all(isinstance(series.get(k), list) for k in keys):
        return {}
    x_key, y_key = keys
    return {
        "x_key": x_key,
        "y_key": y_key,
        "x": thinned(series[x_key]),
        "y": thinned(series[y_key]),
    }


def digest_fields(
    lab: str, result: Mapping[str, Any] | None, before: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A `SubmissionDigest`'s fields from the handed-in run's result (and a pair's before)."""
    result = result or {}
    return {
        "figures": result.get("summary") or {},
        "before_figures": (before or {}).get("summary") if before is not None else None,
        "params": result.get("params") or {},
        "seed": result.get("seed") or 0,
        "trace": main_line(lab, result),
    }
