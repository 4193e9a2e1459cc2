"""Start a run from a submitted lab form: the one path the lab page and assignments share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from labs.catalogue.entries import prompts_for
from labs.runs.dispatch import RunRefused, start_run
from labs.runs.execution import choose_seed
from labs.runs.models import Run
from labs.runs.predictions import save_predictions
from labs.web.forms import LabForm
from labs.web.predict import early_said, skip_said, take_guesses


def run_from_form(
    user,
    form: LabForm,
    predictions: Mapping[str, Any] | None = None,
    require_prediction: bool = False,
) -> tuple[Run | None, int]:
    """The started run and 200, or None and the status to answer with: 422 for a bad value
    (the form carries the messages), the refusal's own status (cap, runner offline) with its
    reason added to the form.

    `predictions` is the POST of a committed run: the guesses in it are kept with the run,
    in the same transaction, so its task is published only once they are saved. With
    `require_prediction` (an assignment that asks for one) a run without a guess is refused
    before it starts, the reason said at the top of the form, just above "Predict first"
    (a skip does not answer it). A run without a guess whose POST says the student skipped
    the question (`labs.web.predict.SKIP_FIELD`) is kept as skipped; a guess given earlier,
    at a drag's ask (`labs.web.predict.EARLY_FIELD`), counts from then.
    """
    if not form.is_valid():
        return None, 422
    lab = form.lab
    guesses = take_guesses(form, predictions)
    if guesses is None:
        return None, 422
    if require_prediction and not guesses and prompts_for(lab.slug):
        form.add_error(
            None,
            _(
                "This assignment asks for a prediction first: answer “Predict first” "
                "just below, then press Run."
            ),
        )
        return None, 422
    try:
        with transaction.atomic():
            run = start_run(user, lab, form.params(), choose_seed(lab, form.seed()))
            save_predictions(
                run, guesses, skipped=skip_said(predictions), early=early_said(predictions)
            )
        return run, 200
    except RunRefused as exc:
        form.add_error(None, exc.message)
        return None, exc.status
