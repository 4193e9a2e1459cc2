"""A student's prediction for a run: what they expected a figure to be, before pressing Run.

Stored with the run it was made for (the run the student committed, never a draft), one
row per prompt answered; each lab's `lab.py` holds its prompts (`Lab.prompts`), and
`labs.catalogue.prediction.judge` holds a guess against the run's figures when shown.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone

from labs.catalogue.entries import prompts_for
from labs.catalogue.prediction import Prompt, Verdict, judge
from labs.runs.models import Run


class Prediction(models.Model):
    """One prompt's answer, given before the run it belongs to was started."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="predictions")
    figure = models.CharField(max_length=64)  # the prompt's summary figure
    value = models.JSONField()  # a number (a share as %), true/false, or a choice's word
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "figure"], name="one_prediction_per_figure")
        ]

    def __str__(self) -> str:
        return f"{self.figure} = {self.value!r} for run {self.run_id}"

    def prompt(self, lab_slug: str) -> Prompt | None:
        for prompt in prompts_for(lab_slug):
            if prompt.figure == self.figure:
                return prompt
        return None


def verdicts(run: Run, predictions: list[Prediction] | None = None) -> list[Verdict]:
    """Each prediction made for `run` against its outcome ([] before it has succeeded)."""
    if run.status != Run.Status.SUCCEEDED:
        return []
    if predictions is None:
        predictions = list(run.predictions.all())
    result: dict[str, Any] = run.result or {}
    summary, params = result.get("summary", {}), run.params
    found = []
    for prediction in predictions:
        prompt = prediction.prompt(run.lab)
        if prompt is not None:
            found.append(judge(prompt, prediction.value, summary, params))
    return found


def save_predictions(run: Run, guesses: dict[str, Any]) -> None:
    """Keep the guesses (figure → value) made for `run`."""
    Prediction.objects.bulk_create(
        Prediction(run=run, figure=figure, value=value) for figure, value in guesses.items()
    )
