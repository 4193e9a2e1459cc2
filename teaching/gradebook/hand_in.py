"""A student's hand-in: saved once, and each resubmission kept as a version before it.

Saving the submission also records the figures the class results page reads
(`Submission.save` → `Submission.record_digest`), and the class's cached
gradebook goes stale (`teaching.gradebook.staleness`).
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction

from labs.runs.models import Run
from labs.web.keeping import keep_shown
from teaching.models import Assignment, Submission


def hand_in(assignment: Assignment, student, run: Run, before: Run | None, now: datetime) -> bool:
    """Save a hand-in; a resubmission keeps the last one as a version. True if it is the first.

    Locks the student's submission row, so two resubmissions at once make two versions
    rather than one lost. A draft handed in (a run started by moving a control) is kept.
    """
    for handed in (run, before):
        if handed is not None:
            keep_shown(handed, student)
    if not Submission.objects.filter(assignment=assignment, student=student).exists():
        try:
            with transaction.atomic():
                Submission.objects.create(
                    assignment=assignment,
                    student=student,
                    run=run,
                    before_run=before,
                    submitted_at=now,
                )
            return True
        except IntegrityError:
            pass  # a second press made it first: this one becomes the next version
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(assignment=assignment, student=student)
        current.archive()
        current.run, current.before_run, current.submitted_at = run, before, now
        current.version += 1
        current.feedback, current.scores, current.feedback_at = "", {}, None
        current.save()
        return False
