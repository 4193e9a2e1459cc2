"""A student's assignments for their home page: each with its due date and whether it is in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from teaching.models import Assignment, Extension, Submission, timing


@dataclass(frozen=True)
class Due:
    assignment: Assignment
    due_at: datetime
    submission: Submission | None
    timing: str  # Timing's words: open, missing, on time, late


def assignments_of(student: Any, now: datetime) -> list[Due]:
    """Every assignment of the student's open classes, soonest due first (their extension
    counts), with their hand-in if there is one. Three queries, whatever the count."""
    assignments = list(
        Assignment.objects.filter(
            classroom__memberships__student=student, classroom__archived_at__isnull=True
        )
        .select_related("classroom")
        .only("title", "due_at", "handin", "classroom__name", "classroom__archived_at")
    )
    ids = [a.pk for a in assignments]
    submissions = {
        s.assignment_id: s
        for s in Submission.objects.filter(student=student, assignment_id__in=ids).only(
            "assignment_id", "submitted_at", "run_id", "before_run_id"
        )
    }
    extended = dict(
        Extension.objects.filter(student=student, assignment_id__in=ids).values_list(
            "assignment_id", "due_at"
        )
    )
    rows = []
    for a in assignments:
        due = a.due_for(extended.get(a.pk))
        sub = submissions.get(a.pk)
        rows.append(Due(a, due, sub, timing(sub.submitted_at if sub else None, due, now)))
    return sorted(rows, key=lambda row: (row.submission is not None, row.due_at))
