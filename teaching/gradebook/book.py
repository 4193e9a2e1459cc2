"""The gradebook of a class: students × assignments, each cell graded from the submission.

Built with a fixed number of queries however many students and assignments there are,
and graded from the current criteria (an edited criterion regrades every cell).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import F
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_noop

from lessons.models import Attempt, latest_attempts
from teaching.challenge_runs import challenge_statuses
from teaching.challenges import Status
from teaching.criteria import Check, Criterion, evaluate, pair_summary, passes
from teaching.evidence import Evidence, Made, evidence_of, guesses_by_run, skipped_runs
from teaching.models import Assignment, Classroom, Extension, Submission, timing
from teaching.people import in_natural_order

FEEDBACK_GIVEN = gettext_noop("feedback given")
FEEDBACK_PENDING = gettext_noop("no feedback yet")


@dataclass
class Cell:
    """One student's standing on one assignment."""

    assignment: Assignment
    due_at: datetime
    extended: bool
    timing: str
    submission: Submission | None = None
    selfcheck: Attempt | None = None  # the latest try at the assignment's self-check
    challenges_met: int = 0  # of the assignment's challenges, met by the student's own runs
    challenges: Sequence[Status] = ()  # each of them met or missed, with the run that met it
    guesses: Mapping[str, Made] = field(default_factory=dict)  # the hand-in's predictions
    skipped: bool = False  # asked for a guess, the student skipped it
    criteria: Sequence[Criterion] = ()  # the assignment's, graded against `figures`
    figures: Mapping[str, Any] | None = None  # what the criteria read of the hand-in

    @property
    def evidence(self) -> Evidence:
        """What the assignment asked beyond the run (`teaching.evidence`)."""
        sub = self.submission
        return evidence_of(
            self.assignment,
            sub,
            made=self.guesses,
            summary=getattr(sub, "summary", None) if sub is not None else None,
            challenges=self.challenges,
            selfcheck=self.selfcheck,
            skipped=self.skipped,
        )

    @property
    def checks(self) -> list[Check]:
        """Each criterion against the hand-in (nothing handed in: none)."""
        return evaluate(self.criteria, self.figures) if self.submission else []

    @cached_property
    def passed(self) -> int:
        """The criteria passed, counted without a `Check` each (2,000 cells in a table)."""
        if self.submission is None:
            return 0
        figures = self.figures or {}
        return sum(passes(c.op, figures.get(c.figure), c.value) for c in self.criteria)

    @property
    def total(self) -> int:
        return len(self.assignment.criteria)

    @property
    def run_status(self) -> str:
        if self.submission is None:
            return ""
        # build_gradebook reads it with the submission; elsewhere it is the run's
        return getattr(self.submission, "run_status", None) or self.submission.run.status

    @property
    def feedback_status(self) -> str:
        """English, like `timing`: "given", "not yet" or "" with nothing handed in."""
        if self.submission is None:
            return ""
        return FEEDBACK_GIVEN if self.submission.has_feedback else FEEDBACK_PENDING


@dataclass
class Row:
    student: Any
    cells: list[Cell]


@dataclass
class Gradebook:
    classroom: Classroom
    assignments: list[Assignment]
    rows: list[Row]


def build_gradebook(classroom: Classroom, now: datetime, students=None) -> Gradebook:
    """Every student's cell for every assignment (or only `students`' rows)."""
    if students is None:
        students = in_natural_order(
            get_user_model().objects.filter(memberships__classroom=classroom)
        )
    ids = [s.pk for s in students]
    assignments = list(classroom.assignments.all())
    extensions = {
        (e.assignment_id, e.student_id): e.due_at
        for e in Extension.objects.filter(assignment__classroom=classroom, student_id__in=ids).only(
            "assignment_id", "student_id", "due_at"
        )
    }
    submissions = {
        (s.assignment_id, s.student_id): s
        for s in Submission.objects.filter(assignment__classroom=classroom, student_id__in=ids)
        .only(
            "assignment_id",
            "student_id",
            "submitted_at",
            "run_id",
            "before_run_id",
            "version",
            "scores",
            "feedback_at",
        )
        .annotate(
            # the run's status as a column, not a Run per cell (2,000 fewer objects)
            run_status=F("run__status"),
            # the hand-in's digest (a few hundred bytes, kept on save) rather than the
            # run's whole stored result, which the database would unpack for each cell
            summary=Coalesce("digest__figures", result_summary("run")),
            before_summary=Coalesce("digest__before_figures", result_summary("before_run")),
        )
    }
    criteria = {a.pk: a.checks() for a in assignments}
    attempts = latest_attempts(ids, {a.selfcheck for a in assignments if a.selfcheck})
    met = challenge_statuses(ids, assignments)
    guesses = guesses_by_run(s.run_id for s in submissions.values())
    skipped = skipped_runs(s.run_id for s in submissions.values())
    rows = []
    for student in students:
        cells = []
        for assignment in assignments:
            extension = extensions.get((assignment.pk, student.pk))
            due = assignment.due_for(extension)
            submission = submissions.get((assignment.pk, student.pk))
            cell = Cell(
                assignment=assignment,
                due_at=due,
                extended=due != assignment.due_at,
                timing=timing(submission.submitted_at if submission else None, due, now),
                submission=submission,
                selfcheck=attempts.get((student.pk, assignment.selfcheck)),
                challenges_met=sum(s.met for s in met.get((student.pk, assignment.pk), [])),
                challenges=met.get((student.pk, assignment.pk), []),
                guesses=guesses.get(submission.run_id, {}) if submission else {},
                skipped=submission is not None and submission.run_id in skipped,
            )
            if submission is not None:
                cell.criteria = criteria[assignment.pk]
                cell.figures = graded_figures(submission)
            cells.append(cell)
        rows.append(Row(student, cells))
    return Gradebook(classroom, assignments, rows)


@dataclass
class Standing:
    """One student's page of an assignment: their due date, submission and its checks."""

    due_at: datetime
    extended: bool
    open: bool
    timing: str
    submission: Submission | None
    checks: list[Check]

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.checks)


def standing_of(assignment: Assignment, student, now: datetime) -> Standing:
    extension = (
        Extension.objects.filter(assignment=assignment, student=student)
        .values_list("due_at", flat=True)
        .first()
    )
    due = assignment.due_for(extension)
    submission = (
        Submission.objects.filter(assignment=assignment, student=student)
        .select_related("run", "before_run")
        .first()
    )
    checks = []
    if submission is not None:
        checks = evaluate(assignment.checks(), summary_of(submission))
    return Standing(
        due_at=due,
        extended=due != assignment.due_at,
        open=now <= due,
        timing=timing(submission.submitted_at if submission else None, due, now),
        submission=submission,
        checks=checks,
    )


def result_summary(run: str) -> Coalesce:
    """A run's result's summary, in SQL: from the result store, or kept on the run itself."""
    return Coalesce(
        KeyTransform("summary", f"{run}__stored_result__data"),
        KeyTransform("summary", f"{run}__own_result"),
    )


def graded_figures(submission: Submission) -> dict[str, Any] | None:
    """The figures the criteria read, from the annotated summaries (the gradebook's query)."""
    if submission.before_run_id is None:
        return submission.summary  # type: ignore[attr-defined]
    return pair_summary(submission.before_summary, submission.summary)  # type: ignore[attr-defined]


def summary_of(submission: Submission) -> dict[str, Any] | None:
    """The figures the criteria read, from the runs themselves (one submission's page)."""
    after = (submission.run.result or {}).get("summary")
    if submission.before_run is None:
        return after
    return pair_summary((submission.before_run.result or {}).get("summary"), after)
