"""The class's figures as rows: one per student, a column per figure and per criterion,
and what the assignment asked beyond the run (`teaching.evidence`: each prediction's guess,
outcome and right or not, each challenge met with the run that met it, the self-check, the
rubric's items and the score), the same columns the page's table of evidence shows.

Column names stay English and keep the figures' keys (`peak_backlog`, `after.recovered`,
`criterion: after.recovered == true`), so a spreadsheet or a script written against one
export reads the next. The CSV view passes every cell through the gradebook's formula
guard (`labs.web.exports.cell`); the JSON keeps values as typed.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone

from lessons.models import latest_attempts
from teaching.challenge_runs import challenge_statuses
from teaching.class_results.figures import ClassResults
from teaching.evidence import (
    Evidence,
    evidence_cells,
    evidence_columns,
    evidence_of,
    guesses_by_run,
    skipped_runs,
)

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
        *evidence_columns(results.assignment),
        "stands apart because",
        "run",
    ]


def class_evidence(results: ClassResults) -> dict[Any, Evidence]:
    """student id → what the assignment asked of them: three queries for the whole class
    (the predictions of the runs handed in, the challenges' runs, the self-checks)."""
    assignment = results.assignment
    entries = results.entries
    ids = [e.student.pk for e in entries]
    made = guesses_by_run(e.submission.run_id for e in entries if e.submission)
    skipped = skipped_runs(e.submission.run_id for e in entries if e.submission)
    met = challenge_statuses(ids, [assignment])
    tried = latest_attempts(ids, [assignment.selfcheck]) if assignment.selfcheck else {}
    return {
        e.student.pk: evidence_of(
            assignment,
            e.submission,
            made=made.get(e.submission.run_id, {}) if e.submission else {},
            summary=e.digest.figures if e.digest else None,
            challenges=met.get((e.student.pk, assignment.pk), []),
            selfcheck=tried.get((e.student.pk, assignment.selfcheck)),
            skipped=e.submission is not None and e.submission.run_id in skipped,
        )
        for e in entries
    }


def run_link(request):
    """A run's absolute link, for an export's cells."""
    return lambda run_id: request.build_absolute_uri(reverse("run-detail", args=[run_id]))


def export_rows(results: ClassResults, request) -> list[dict[str, Any]]:
    pair = results.assignment.is_pair
    names = [f.name for f in results.lab.figures]
    evidence = class_evidence(results)
    link = run_link(request)
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
        row.update(evidence_cells(results.assignment, evidence[entry.student.pk], link))
        row["stands apart because"] = "; ".join(entry.reasons)
        row["run"] = link(submission.run_id) if submission else None
        rows.append(row)
    return rows
