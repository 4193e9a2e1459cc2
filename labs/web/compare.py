"""Two runs of one lab side by side: their figures in a table, their series overlaid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from labs.catalogue.lab import Lab
from labs.charts.base import figure, line, plotly_text
from labs.runs.models import Run
from labs.text import said
from labs.web.exports import series_rows
from labs.web.series_names import readable, series_names

__all__ = ["compare_runs", "overlay_charts", "readable"]


@dataclass
class FigureRow:
    name: str
    label: str
    a: Any
    b: Any

    @property
    def same(self) -> bool:
        return self.a == self.b and type(self.a) is type(self.b)


@dataclass
class Comparison:
    a: Run
    b: Run
    finished: bool
    rows: list[FigureRow] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    same_summary: bool = False
    same_series: bool = False

    @property
    def same_result(self) -> bool:
        return self.same_summary and self.same_series

    @property
    def param_diffs(self) -> list[tuple[str, Any, Any]]:
        """The parameters the two runs were given differently: (name, A's, B's)."""
        pa, pb = self.a.params or {}, self.b.params or {}
        names = list(pa) + [n for n in pb if n not in pa]
        return [(n, pa.get(n, "—"), pb.get(n, "—")) for n in names if pa.get(n) != pb.get(n)]

    @property
    def same_inputs(self) -> bool:
        return self.a.params == self.b.params and self.a.seed == self.b.seed


def run_label(run: Run, fallback: str) -> str:
    """A run as a legend names it: its name, else A/B, whose and when it started
    (a student tells their runs apart by the time, not by an id's first digits)."""
    if run.name:
        return run.name
    when = date_format(timezone.localtime(run.created_at), "H:i:s")
    return f"{fallback}: {run.owner.get_username()} {when}"


def compare_runs(a: Run, b: Run, lab: Lab | None) -> Comparison:
    """Compare two finished runs; unfinished ones give an empty comparison to poll on."""
    done = a.status == b.status == Run.Status.SUCCEEDED and bool(a.result) and bool(b.result)
    comparison = Comparison(a=a, b=b, finished=a.is_finished and b.is_finished)
    if not done:
        return comparison
    sa, sb = a.result.get("summary", {}), b.result.get("summary", {})
    declared = lab.figures if lab else ()
    labels = {f.name: said(f.label) for f in declared}
    # The lab's order (jsonb on PostgreSQL does not keep the saved order), then any others.
    names = [f.name for f in declared if f.name in sa or f.name in sb]
    names += sorted((set(sa) | set(sb)) - set(names))
    comparison.rows = [
        FigureRow(name, labels.get(name, name), sa.get(name, "—"), sb.get(name, "—"))
        for name in names
    ]
    comparison.same_summary = sa == sb
    comparison.same_series = a.result.get("series") == b.result.get("series")
    comparison.charts = overlay_charts(
        a.result,
        b.result,
        plotly_text(run_label(a, "A")),
        plotly_text(run_label(b, "B")),
        series_names(lab, a.result),
    )
    return comparison


def overlay_charts(
    result_a: dict[str, Any],
    result_b: dict[str, Any],
    name_a: str,
    name_b: str,
    words: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One chart per series, run A solid and run B dashed, against the first series (time),
    each titled in the lab's words for it (`words`, by series key)."""
    words = words or {}
    columns, _rows = series_rows(result_a)
    if not columns:
        return []
    series_a, series_b = result_a["series"], result_b.get("series") or {}
    x_name, *measured = columns
    charts = []
    for name in measured:
        if not isinstance(series_b.get(name), list):
            continue
        charts.append(
            figure(
                title=_("%(series)s: both runs")
                % {"series": capfirst(words.get(name, readable(name)))},
                x_title=words.get(x_name, readable(x_name)),
                y_title=words.get(name, readable(name)),
                traces=[
                    line(series_a[x_name], series_a[name], name_a),
                    line(series_b.get(x_name, []), series_b[name], name_b, dash="dash"),
                ],
                height=300,
            )
        )
    return charts
