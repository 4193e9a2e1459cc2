"""The student's own analysis of a before/after pair, kept as a draft beside the report.

The report measures; the analysis is the student's reasoning about what was measured: the
trigger, the loop that keeps the service down, their recovery procedure in their own
numbered steps, why the drain estimate missed, and the answers to the two follow-ups.
One draft per pair of runs; it is frozen once the pair is handed in
(`labs.runs.references.pair_handed_in`, the door to teaching's submissions).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from labs.runs import references
from labs.runs.models import Run

MAX_ANSWER = 4000  # characters per answer: a page of writing, bounded for the database
MAX_STEPS = 20

# (field, heading): the order the page, the Markdown and the JSON use.
QUESTIONS = (
    ("trigger", gettext_lazy("The trigger: what started the trouble")),
    ("loop", gettext_lazy("The loop: what kept the service down after the trigger ended")),
    ("steps", gettext_lazy("My recovery procedure, one step per line")),
    ("drain_miss", gettext_lazy("Why the drain estimate missed")),
    ("followup_cold_cache", gettext_lazy("Follow-up 1: a cold cache after the restart")),
    ("followup_job_cost", gettext_lazy("Follow-up 2: jobs that cost different amounts")),
)
FIELDS = tuple(name for name, _heading in QUESTIONS)


# Its keys onto a run that keep the run from being pruned: a draft analysis holds both its
# runs, and pruning them would delete the student's text. Declared to the run lifecycle
# (`labs.runs.references.register_keeper`) by `LabsConfig.ready`: `labs.runs` ranks below
# the capstone and may not import it.
KEEPS_RUNS = ("before", "after")


class Analysis(models.Model):
    """One student's written analysis of one before/after pair of their own runs."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="analyses"
    )
    before = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="analyses_as_before")
    after = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="analyses_as_after")
    trigger = models.TextField(blank=True, max_length=MAX_ANSWER)
    loop = models.TextField(blank=True, max_length=MAX_ANSWER)
    steps = models.TextField(blank=True, max_length=MAX_ANSWER)
    drain_miss = models.TextField(blank=True, max_length=MAX_ANSWER)
    followup_cold_cache = models.TextField(blank=True, max_length=MAX_ANSWER)
    followup_job_cost = models.TextField(blank=True, max_length=MAX_ANSWER)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["before", "after"], name="one_analysis_per_pair")
        ]

    def __str__(self) -> str:
        return f"analysis of {self.before_id} / {self.after_id}"

    @property
    def step_list(self) -> list[str]:
        """The procedure as the student numbered it: one step per non-empty line."""
        lines = [line.strip() for line in self.steps.splitlines()]
        return [line.lstrip("0123456789.) ").strip() or line for line in lines if line][:MAX_STEPS]

    @property
    def is_empty(self) -> bool:
        return not any(getattr(self, name).strip() for name in FIELDS)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {name: getattr(self, name) for name in FIELDS}
        data["steps"] = self.step_list
        data["updated_at"] = self.updated_at.isoformat(timespec="seconds")
        return data

    def answers(self) -> list[tuple[str, str, Any]]:
        """(field, heading, text or list of steps) in the page's order."""
        return [
            (name, str(heading), self.step_list if name == "steps" else getattr(self, name))
            for name, heading in QUESTIONS
        ]


def analysis_of(before: Run, after: Run) -> Analysis | None:
    return Analysis.objects.filter(before=before, after=after).first()


def pair_is_handed_in(before: Run, after: Run) -> bool:
    """True once the pair is in a submission, current or an earlier version: then frozen."""
    return Run.objects.filter(references.pair_handed_in(before, after)).exists()
