"""The class's figures as rows: one per student, a column per figure and per criterion.

Column names stay English and keep the figures' keys (`peak_backlog`, `after.recovered`,
`criterion: after.recovered == true`), so a spreadsheet or a script written against one
export reads the next. The CSV view passes every cell through the gradebook's formula
guard (`labs.web.exports.cell`); the JSON keeps values as typed.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone

from teaching.class_results.figures import ClassResults

FIXED = ("username", "name", "section", "timing", "submitted_at", "version", "seed")


def figure_columns(results: ClassResults) -> list[str]:
    names = [f.name for f in results.lab.figures]
    if results.assignment.is_pair:
        return [f"before.{n}" for n in names] + [f"after.{n}" for n in names]
    return names


def export_columns(results: ClassResults) -> list[str]:
    criteria = [f"criterion: {c}" for c in results.assignment.checks()]
    return [
        *FIXED,
        *figure_columns(results),
        *criteria,
        "criteria passed",
        "stands apart because",
        "run",
    ]


def export_rows(results: ClassResults, request) -> list[dict[str, Any]]:
    pair = results.assignment.is_pair
    names = [f.name for f in results.lab.figures]
    rows = []
    for entry in results.entries:
        submission, digest = entry.submission, entry.digest
        row: dict[str, Any] = {
            "username": entry.student.get_username(),
            "name": entry.student.get_full_name(),
            "section": entry.section,
            "timing": entry.timing,
            "submitted_at": (
                timezone.localtime(submission.submitted_at).isoformat(timespec="seconds")
                if submission
                else None
            ),
            "version": submission.version if submission else None,
            "seed": digest.seed if digest else None,
        }
        figures = digest.figures if digest else {}
        before = (digest.before_figures or {}) if digest else {}
        for name in names:
            if pair:
                row[f"before.{name}"] = before.get(name)
                row[f"after.{name}"] = figures.get(name)
            else:
                row[name] = figures.get(name)
        for check in entry.checks:
            row[f"criterion: {check.criterion}"] = check.passed
        for criterion in results.assignment.checks():
            row.setdefault(f"criterion: {criterion}", None)
        row["criteria passed"] = entry.passed if digest else None
        row["stands apart because"] = "; ".join(entry.reasons)
        row["run"] = (
            request.build_absolute_uri(reverse("run-detail", args=[submission.run_id]))
            if submission
            else None
        )
        rows.append(row)
    return rows
