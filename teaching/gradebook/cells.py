"""The gradebook's cells as HTML, in one pass over the built gradebook.

A class of 100 × 20 is 2,000 cells. Through the template language each cell cost about
twenty variable look-ups, six translation tags and three `{% url %}` reversals: most of
a second of CPU for the first view after every change. Here each cell is one string
format: the words are translated once per table (not once per cell), the three kinds of
link are reversed once and filled in, and only what comes from people (numbers, dates)
is escaped. The table around the cells (headers, the student column) stays in
`templates/teaching/gradebook.html`; the cell's markup is the one the template had.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format, localize
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext, pgettext

from teaching.gradebook.book import Cell

# Stand-ins reversed once, then replaced by each cell's ids.
_A = "00000000-0000-4000-8000-00000000000a"
_B = "00000000-0000-4000-8000-00000000000b"
_N = 987654321


class Links:
    """The gradebook's three kinds of link, each reversed once."""

    def __init__(self) -> None:
        self.report = reverse("report", args=[_A, _B])
        self.run = reverse("run-detail", args=[_A])
        self.submission = reverse("submission-detail", args=[_N])

    def report_of(self, before: Any, after: Any) -> str:
        return self.report.replace(_A, str(before)).replace(_B, str(after))

    def run_of(self, run_id: Any) -> str:
        return self.run.replace(_A, str(run_id))

    def submission_of(self, pk: int) -> str:
        return self.submission.replace(str(_N), str(pk))


def _memo(f: Callable[[str], str]) -> Callable[[str], str]:
    return cache(f)


class Words:
    """What a cell says, in the active language, each asked of the catalogue once."""

    def __init__(self) -> None:
        self.status = _memo(lambda s: escape(pgettext("run status", s)))
        self.said = _memo(lambda s: escape(gettext(s)) if s else "")
        self.slug = _memo(lambda s: slugify(s))
        self.report = escape(gettext("report"))
        self.run = escape(gettext("run"))
        self.checks = escape(gettext("checks and feedback"))
        self.criteria = escape(gettext("%(passed)s of %(total)s criteria"))
        self.not_tried = escape(gettext("self-check not tried"))
        self.version = escape(gettext("version %(n)s"))
        self.score = escape(gettext("score %(score)s/%(total)s"))
        self.challenges = escape(gettext("challenges %(met)s/%(total)s"))
        self.selfcheck = escape(gettext("self-check %(right)s/%(total)s"))
        self.extended = escape(gettext("extended to %(due)s"))


def _value(value: Any) -> str:
    """A number as the template showed it (localised), escaped."""
    if type(value) is int:
        return str(value)
    return escape(localize(value))


def cell_html(cell: Cell, words: Words, links: Links) -> str:
    slug = words.slug(cell.timing)
    timing = f'<span class="timing {slug}">{words.said(cell.timing)}</span>'
    parts = [f'<td class="cell {slug}">']
    sub = cell.submission
    if sub is not None:
        status = cell.run_status
        # The badge says the criteria, not the run: a run that succeeded can meet none of them.
        if status != "succeeded":
            parts.append(f'<span class="badge {escape(status)}">{words.status(status)}</span> ')
        if cell.total:
            met = "succeeded" if cell.passed == cell.total else "failed"
            shown = {"passed": _value(cell.passed), "total": _value(cell.total)}
            parts.append(f'<span class="badge criteria {met}">{words.criteria % shown}</span> ')
        parts.append(f"{timing}<br>")
        if sub.before_run_id:
            parts.append(
                f'<a href="{links.report_of(sub.before_run_id, sub.run_id)}">{words.report}</a>'
            )
        else:
            parts.append(f'<a href="{links.run_of(sub.run_id)}">{words.run}</a>')
        parts.append(f' · <a href="{links.submission_of(sub.pk)}">{words.checks}</a>')
        if sub.version > 1:
            parts.append(
                f' <small class="muted">{words.version % {"n": _value(sub.version)}}</small>'
            )
        parts.append(f'<br><span class="feedback-status">{words.said(cell.feedback_status)}</span>')
        score = sub.score
        if score is not None:
            shown = {"score": _value(score), "total": _value(cell.assignment.rubric_max)}
            parts.append(f" · <strong>{words.score % shown}</strong>")
    else:
        parts.append(timing)
    assignment = cell.assignment
    if assignment.challenges:
        shown = {"met": _value(cell.challenges_met), "total": _value(len(assignment.challenges))}
        parts.append(f'<br><span class="challenges-met">{words.challenges % shown}</span>')
    if assignment.selfcheck:
        tried = cell.selfcheck
        said = (
            words.selfcheck % {"right": _value(tried.right), "total": _value(tried.total)}
            if tried
            else words.not_tried
        )
        parts.append(f'<br><span class="selfcheck-score">{said}</span>')
    if cell.extended:
        due = escape(date_format(timezone.localtime(cell.due_at), "j M, H:i"))
        parts.append(f'<br><small class="muted">{words.extended % {"due": due}}</small>')
    parts.append("</td>")
    return "".join(parts)


def row_cells(rows: Iterable[Any]) -> list[tuple[Any, SafeString]]:
    """(student, their cells' HTML) per row of a built gradebook."""
    words, links = Words(), Links()
    return [
        (row.student, mark_safe("".join(cell_html(c, words, links) for c in row.cells)))  # noqa: S308
        for row in rows
    ]
