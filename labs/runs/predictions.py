"""A student's prediction for a run: what they expected a figure to be, before pressing Run.

Stored with the run it was made for (the run the student committed, never a draft), one
row per prompt answered; each lab's `lab.py` holds its prompts (`Lab.prompts`), and
`labs.catalogue.prediction.judge` holds a guess against the run's figures when shown.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _

from labs.catalogue.entries import prompts_for
from labs.catalogue.prediction import Prompt, Verdict, judge
from labs.runs import early_guesses
from labs.runs.models import Run


class Prediction(models.Model):
    """One prompt's answer, given before the run it belongs to was started (with its Run,
    or earlier at a drag's ask: `labs.runs.early_guesses`)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="predictions")
    figure = models.CharField(max_length=64)  # the prompt's summary figure
    value = models.JSONField()  # a number (a share as %), true/false, or a choice's word
    created_at = models.DateTimeField(default=timezone.now)
    # Given after the student had been shown a result for these values (a draft as a slider
    # moved, an earlier run): shown against the run, never counted right (`given_after_result`).
    after_result = models.BooleanField(default=False)

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


class SeenResult(models.Model):
    """When a student was first shown a result for a lab with these values (any seed)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    lab = models.CharField(max_length=64)
    params_key = models.CharField(max_length=64)  # params_key(run.params)
    first_shown_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "lab", "params_key"], name="one_first_sight_per_values"
            )
        ]

    def __str__(self) -> str:
        return f"{self.lab} {self.params_key[:8]} first shown to {self.user_id}"


def params_key(params: dict[str, Any]) -> str:
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def record_shown(user, run: Run) -> None:
    """Remember that `user` has seen `run`'s result (their own run, succeeded): a guess for
    the same values after this is no prediction. One INSERT, ignored when already known."""
    if run.status != Run.Status.SUCCEEDED or run.owner_id != getattr(user, "pk", None):
        return
    SeenResult.objects.bulk_create(
        [SeenResult(user_id=user.pk, lab=run.lab, params_key=params_key(run.params))],
        ignore_conflicts=True,
    )


def first_shown(run: Run) -> datetime | None:
    """When the run's owner was first shown a result for the run's lab and values."""
    return (
        SeenResult.objects.filter(
            user_id=run.owner_id, lab=run.lab, params_key=params_key(run.params)
        )
        .values_list("first_shown_at", flat=True)
        .first()
    )


def given_after_result(shown: datetime | None, given: datetime | None) -> bool:
    """The one rule for "after a result": a result for the run's values had been shown
    before the guess was given. `given` None: with Run, after anything shown so far."""
    return shown is not None and (given is None or shown < given)


def seen_before(run: Run, given: datetime | None = None) -> bool:
    """Whether the run's owner had been shown a result for the run's lab and values (before
    `given`, the moment a guess was given; by default, before now)."""
    return given_after_result(first_shown(run), given)


def verdicts(run: Run, predictions: list[Prediction] | None = None) -> list[Verdict]:
    """Each prediction made for `run` against its outcome ([] before it has succeeded).

    A draft has none (guesses are kept with the run pressed: `labs.web.start`), so a
    draft's body asks nothing of the database here.
    """
    if run.status != Run.Status.SUCCEEDED or run.draft:
        return []
    if predictions is None:
        predictions = list(run.predictions.all())
    result: dict[str, Any] = run.result or {}
    summary, params = result.get("summary", {}), run.params
    found = []
    for prediction in predictions:
        prompt = prediction.prompt(run.lab)
        if prompt is None:
            continue
        verdict = judge(prompt, prediction.value, summary, params)
        if prediction.after_result:
            late = _(
                "This guess was made after a result for these values had been shown, "
                "so it is not counted right."
            )
            verdict = replace(verdict, right=False, late=True, because=f"{late} {verdict.because}")
        found.append(verdict)
    return found


def save_predictions(
    run: Run, guesses: dict[str, Any], skipped: bool = False, early: str = ""
) -> None:
    """Keep the guesses (figure → value) made for `run`, marked when the student had been
    shown a result for these values before giving them (issue 39: a guess after the answer).

    A guess is given with Run, unless it came earlier with a draft, under the ask's id
    `early` (`labs.runs.early_guesses`: the guess at a drag's ask, before the draft's chart
    was shown; issue 34). With no guess, `skipped` (the student was asked and pressed "Skip
    this time") is kept on the run itself, so a teacher tells a skip from a run where
    nobody asked."""
    if not guesses:
        if skipped:
            Run.objects.filter(pk=run.pk).update(prediction_skipped=True)
            run.prediction_skipped = True
        return
    shown = first_shown(run)
    given = early_guesses.given_early(run.owner_id, run.lab, early, guesses)
    Prediction.objects.bulk_create(
        Prediction(
            run=run,
            figure=figure,
            value=value,
            after_result=given_after_result(shown, given.get(figure)),
        )
        for figure, value in guesses.items()
    )
