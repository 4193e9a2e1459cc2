"""A guess given on a lab page before any result was on it, kept the moment it came.

On a lab that re-runs as its sliders move (`labs.runs.drafts`), the first drag with no
guess asks for one (predict.js). The guess given there lets the held draft go, and that
draft's chart is on the screen a moment later, long before the student presses Run, which
is what carries the guess to its run (`labs.runs.predictions.save_predictions`). Counted
from Run, the guess came after a result (issue 34). So the draft's post carries it too,
under an id predict.js made when it was given (`labs.web.predict.EARLY_FIELD`), and it is
kept here before the draft is started: a run's guess that is still the same, sent under
the same id, counts from then.

A guess typed once a result is on the page carries no new id (predict.js makes none then)
and one changed after the ask no longer matches: both count from Run, as before. One row
per student and lab, the newest ask's, so a student cannot gather early guesses and pick,
after seeing a result, the one that fits it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class EarlyGuess(models.Model):
    """The guesses a student gave at their newest ask on a lab, and when they came."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    lab = models.CharField(max_length=64)
    ask = models.CharField(max_length=40)  # the id predict.js made as the guess was given
    guesses = models.JSONField()  # figure → value, as labs.web.predict.read_guesses reads them
    given_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "lab"], name="one_early_guess_per_lab")
        ]

    def __str__(self) -> str:
        return f"{self.lab} guess {self.ask} by {self.user_id} at {self.given_at:%H:%M:%S}"


def keep(user, lab: str, ask: str, guesses: dict[str, Any]) -> None:
    """Keep the guesses a draft's post carries under `ask`, timed at their first arrival.

    Every later draft of the page carries the same id (it stays in the form until Run):
    those change nothing, so a guess changed after the ask is not kept as early."""
    if not ask or not guesses:
        return
    if EarlyGuess.objects.filter(user=user, lab=lab, ask=ask).exists():
        return
    EarlyGuess.objects.update_or_create(
        user=user,
        lab=lab,
        defaults={"ask": ask, "guesses": guesses, "given_at": timezone.now()},
    )


def given_early(owner_id: Any, lab: str, ask: str, guesses: dict[str, Any]) -> dict[str, datetime]:
    """figure → when it was given, for each of a run's guesses that came early: under the
    newest ask's id, with the same value. The others were given with Run itself."""
    if not ask or not guesses:
        return {}
    early = EarlyGuess.objects.filter(user_id=owner_id, lab=lab, ask=ask).first()
    if early is None:
        return {}
    return {
        figure: early.given_at
        for figure, value in guesses.items()
        if figure in early.guesses and early.guesses[figure] == value
    }
