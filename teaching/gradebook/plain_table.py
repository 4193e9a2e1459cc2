"""The gradebook as a table of plain values: the CSV download, and the class's export zip.

Headers and values stay English (they are data a spreadsheet reads, like `timing`).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from teaching.evidence import evidence_cells, evidence_columns
from teaching.gradebook.book import Gradebook
from teaching.gradebook.cells import Links
from teaching.people import shown_username_en


def gradebook_table(book: Gradebook, request: HttpRequest) -> tuple[list[str], list[list[Any]]]:
    """One row per student; per assignment eleven columns, then what it asked beyond the
    run (`teaching.evidence`: predictions, challenges, rubric items)."""
    header = ["username", "name"]
    extra = {a.pk: [c for c in evidence_columns(a) if c not in ALREADY] for a in book.assignments}
    for a in book.assignments:
        header += [
            f"{a.title}: status",
            f"{a.title}: criteria passed",
            f"{a.title}: criteria",
            f"{a.title}: timing",
            f"{a.title}: submitted at",
            f"{a.title}: run",
            f"{a.title}: self-check right",
            f"{a.title}: self-check questions",
            f"{a.title}: score",
            f"{a.title}: score out of",
            f"{a.title}: feedback",
            *[f"{a.title}: {column}" for column in extra[a.pk]],
        ]
    links = Links()  # reversed once, not once a cell
    site = request.build_absolute_uri("/").rstrip("/")

    def run_link(run_id) -> str:
        return site + links.run_of(run_id)

    rows = []
    for row in book.rows:
        line = [shown_username_en(row.student), row.student.get_full_name()]
        for cell in row.cells:
            sub = cell.submission
            line += [
                cell.run_status,
                cell.passed if sub else "",
                cell.total,
                cell.timing,
                timezone.localtime(sub.submitted_at).isoformat(timespec="seconds") if sub else "",
                site + links.run_of(sub.run_id) if sub else "",
                cell.selfcheck.right if cell.selfcheck else "",
                cell.selfcheck.total if cell.selfcheck else "",
                _score(sub.score) if sub and sub.score is not None else "",
                cell.assignment.rubric_max or "",
                cell.feedback_status,
            ]
            cells = evidence_cells(cell.assignment, cell.evidence, run_link)
            line += [_plain(cells[column]) for column in extra[cell.assignment.pk]]
        rows.append(line)
    return header, rows


# The evidence columns the eleven above already hold.
ALREADY = frozenset({"self-check right", "self-check questions", "score", "score out of"})


def _plain(value: Any) -> Any:
    return "" if value is None else value


def _score(value: float) -> str:
    return f"{value:g}"
