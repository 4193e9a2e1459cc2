"""CSV downloads: a run's time series here, the gradebook in `teaching`."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any

from django.http import HttpResponse

# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A value safe to open in a spreadsheet: text that looks like a formula is quoted."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_response(
    filename: str, header: Sequence[str], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """An attachment named `filename` with one header line and then `rows`."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow([cell(h) for h in header])
    for row in rows:
        writer.writerow([cell(v) for v in row])
    return response


def series_rows(result: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """A result's series as columns (in the runner's order) and rows (shortest sets length)."""
    series = result.get("series") or {}
    order = result.get("series_order") or list(series)  # runs saved before the order was kept
    columns = [name for name in order if isinstance(series.get(name), list)]
    if not columns:
        return [], []
    length = min(len(series[name]) for name in columns)
    return columns, [[series[name][i] for name in columns] for i in range(length)]
