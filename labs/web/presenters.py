"""What a run page shows, worked out once so templates stay simple."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
from django.utils.translation import gettext as _

from labs.catalogue.advice import Snippet
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Verdict
from labs.catalogue.spread import OVER_SEEDS, SEEDS
from labs.experiments.error_words import error_words
from labs.interface.figures import Figure
from labs.runs import retained_caps, retained_queue, waiting
from labs.runs.models import Run
from labs.runs.predictions import verdicts
from labs.text import num, said
from labs.web import run_extras
from labs.web.exports import series_rows
from labs.web.series_names import named, series_names
from labs.web.try_next import try_next_links


@dataclass
class RunView:
    status: str
    headline: list[str] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] | None = None  # {"columns": [...], "rows": [[...], ...]}
    tables: list[dict[str, Any]] = field(default_factory=list)  # shown under the headline
    percent: int | None = None
    hint: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (words, url) under the facts
    live: dict[str, Any] | None = None  # a running experiment: {"numbers", "figure"}
    try_next: list[tuple[str, str]] = field(default_factory=list)  # (question, url)
    production: list[Snippet] = field(default_factory=list)  # the run's values, as real systems
    has_table: bool = False  # the per-step table exists (fetched when opened: run-numbers)
    waiting: str = ""  # a queued run: what is ahead of it, and for how long it has waited
    poll_ms: int = 1000  # an unfinished run: when the page looks again
    charts_html: str = ""  # the tables and figures, already rendered (fragment_cache)
    key_figure: tuple[str, str] | None = None  # (label, value): the lab's first figure
    predictions: list[Verdict] = field(default_factory=list)  # the student's, against the run


def present_run(run: Run, lab: Lab | None, *, charts: bool = True) -> RunView:
    """The run page's view of `run`; `charts=False` leaves out the tables and figures, for
    a caller that has them rendered already."""
    view = RunView(status=run.status)
    if lab is None:
        view.hint = _("This lab no longer exists; the saved parameters and result are kept.")
        return view
    if run.status == Run.Status.SUCCEEDED and run.result:
        view.headline = lab.headline(run.result)
        view.key_figure = key_figure(lab, run.result.get("summary") or {})
        view.has_table = bool(run.result.get("series"))
        if charts:
            view.figures, view.tables = present_charts(run.result, lab)
        view.links = run_extras.links_for(run)
        view.try_next = try_next_links(lab.slug, lab.params, lab.try_next, run.params)
        view.production = production_for(lab, run.params)
        view.predictions = verdicts(run)
    elif run.status == Run.Status.RUNNING and run.progress:
        done, total = run.progress.get("done", 0), run.progress.get("total", 0)
        view.percent = int(100 * done / total) if total else None
        if run.params.get(OVER_SEEDS.name):
            # Twenty runs one after another: one queue's live chart would mix them all.
            view.hint = _("Seed %(k)s of %(n)s") % {"k": min(done + 1, total or SEEDS), "n": SEEDS}
        elif lab.live is not None:
            view.live = lab.live.present(run.progress.get("samples") or [], run.params)
    if not run.is_finished:
        view.poll_ms = waiting.poll_delay_ms(run)
        view.waiting = waiting.waiting_text(run)
    return view


def key_figure(lab: Lab, summary: dict[str, Any]) -> tuple[str, str] | None:
    """The lab's first declared result and its value in words, for the bar beside Run.

    A figure that repeats one of the lab's inputs (breaker's threshold, retry-storm's
    clients) is not a result: the bar would show what the student just set.
    """
    inputs = set(lab.defaults())
    for figure in lab.figures:
        if figure.name in summary and figure.name not in inputs:
            return str(said(figure.label)), figure_words(figure, summary[figure.name])
    return None


def figure_words(figure: Figure, value: Any) -> str:
    """One figure's value as a student reads it: 800 jobs, 0.25 s, yes, —."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int | float):
        unit = _(figure.unit) if figure.unit else ""
        return f"{num(value)} {unit}".strip()
    return said(value)


def present_charts(result: dict[str, Any], lab: Lab) -> tuple[list[dict[str, Any]], list]:
    """A result's figures and shown tables, in the reader's language."""
    return lab.charts(result), shown_tables(result)


def series_table(
    result: dict[str, Any], lab: Lab | None = None, max_rows: int = 400
) -> dict[str, Any] | None:
    """The per-step series as a table (columns in the runner's order), cut to `max_rows`.

    `headings` are (key, words): the page says each series in the reader's words and keeps
    its key, the CSV's and the JSON's header, as the heading's title.
    """
    columns, rows = series_rows(result)
    if not columns:
        return None
    names = series_names(lab, result)
    return {
        "columns": columns,
        "headings": [(key, names.get(key) or named(key, lab)) for key in columns],
        "rows": rows[:max_rows],
        "cut": len(rows) > max_rows,
    }


def shown_tables(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The result's display tables (`{"title", "columns", "rows"}`), in the runner's order.

    Other entries of `tables` (a label, data a chart needs) are not for the page.
    """
    tables = result.get("tables", {})
    names = result.get("tables_order") or list(tables)
    return [
        _in_reader_words(tables[name])
        for name in names
        if isinstance(tables.get(name), dict)
        and {"title", "columns", "rows"} <= tables[name].keys()
    ]


def _in_reader_words(shown: dict[str, Any]) -> dict[str, Any]:
    """A saved table in the reader's words: its title, headings and word cells.

    The worker saved English msgids (it has no reader), or `phrase`s where a number sits
    inside the words (`labs.text.said`); ids and numbers are shown as saved, and so is the
    English of a result saved before its words were marked.
    """
    columns = shown["columns"]
    return shown | {
        "title": said(shown["title"]),
        "columns": [said(c) for c in columns],
        "rows": [
            [_cell(column, cell) for column, cell in zip(columns, row, strict=False)]
            + [said(cell) for cell in row[len(columns) :]]
            for row in shown["rows"]
        ],
    }


# A column of saved `repr(error)`s (poison-live's parked messages): said in a few words.
LAST_ERROR = "last error"


def _cell(column: Any, cell: Any) -> Any:
    if column == LAST_ERROR and isinstance(cell, str):
        return error_words(cell)
    return said(cell)


@dataclass
class PanelView:
    """The queue panel of a finished experiment: its retained queue, or why there is none."""

    queue: dict[str, Any] | None = None  # retained_queue.snapshot()
    gone: str = ""  # why there is nothing to show
    can_act: bool = False  # only the run's owner may redrive or purge
    capacity_per_s: float = retained_queue.DRAIN_CAPACITY_PER_S

    @property
    def polling(self) -> bool:
        """Keep refreshing while a redrive or drain is going on."""
        q = self.queue
        return bool(q and (q["busy"] or q["depth"] or q["in_flight"]))


def present_panel(run: Run, lab: Lab | None, user) -> PanelView | None:
    """What the queue panel shows for `run` to `user`; None if the lab has no panel."""
    if lab is None or lab.kind != "experiment" or not run.is_finished:
        return None
    if not lab.keeps_dlq:
        return PanelView(
            gone=_("This lab keeps no dead-letter queue: its queues were deleted when it ended.")
        )
    if run.status == Run.Status.FAILED:
        return PanelView(
            gone=_("This run failed, so its queues were deleted and nothing was kept.")
        )
    if run.dlq_note:
        return PanelView(gone=retained_caps.note_for(run.dlq_note))
    try:
        snapshot = retained_queue.snapshot(run.pk)
    except retained_queue.QueueGone as exc:
        return PanelView(gone=retained_queue.gone_reason(run.finished_at, exc))
    except redis.RedisError:
        return PanelView(gone=_("The queue panel cannot reach Redis just now. Try again shortly."))
    return PanelView(queue=snapshot, can_act=run.owner_id == user.pk)


def production_for(lab: Lab, values: dict[str, Any]) -> list[Snippet]:
    """The lab's "in production" snippets for these values (the defaults fill any gap)."""
    if lab.in_production is None:
        return []
    return lab.in_production({**lab.defaults(), **values})
