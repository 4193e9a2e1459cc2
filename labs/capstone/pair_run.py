"""Start a before/after pair from a valid lab form: one seed, controls off then on.

The lab page's "Run before/after" and an assignment's both start their pair here, so the
two can differ only in where the form's values come from (an assignment locks some).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from labs.capstone.pairs import pair_params
from labs.runs.dispatch import start_runs
from labs.runs.execution import choose_seed
from labs.runs.models import Run
from labs.runs.predictions import save_predictions
from labs.web.forms import LabForm


def start_pair(
    user: Any,
    form: LabForm,
    guesses: dict[str, Any] | None = None,
    skipped: bool = False,
    early: str = "",
) -> tuple[Run, Run]:
    """The pair's two runs, saved and queued; `RunRefused` when the caps or Redis say no.

    `guesses` (`labs.web.predict.take_guesses`) are about the run with the controls on,
    the one the student set: they are kept with the after run, in the same transaction
    (or, with none, `skipped`: the student was asked and skipped); `early` is the id of a
    guess given at a drag's ask (`labs.web.predict.EARLY_FIELD`)."""
    lab = form.lab
    seed = choose_seed(lab, form.seed())
    before_params, after_params = pair_params(form.params())
    with transaction.atomic():
        before, after = start_runs(user, lab, [(before_params, seed), (after_params, seed)])
        save_predictions(after, guesses or {}, skipped=skipped, early=early)
    return before, after
