"""Start a run from a submitted lab form: the one path the lab page and assignments share."""

from __future__ import annotations

from labs.runs.dispatch import RunRefused, start_run
from labs.runs.execution import choose_seed
from labs.runs.models import Run
from labs.web.forms import LabForm


def run_from_form(user, form: LabForm) -> tuple[Run | None, int]:
    """The started run and 200, or None and the status to answer with: 422 for a bad value
    (the form carries the messages), the refusal's own status (cap, runner offline) with its
    reason added to the form."""
    if not form.is_valid():
        return None, 422
    lab = form.lab
    try:
        return start_run(user, lab, form.params(), choose_seed(lab, form.seed())), 200
    except RunRefused as exc:
        form.add_error(None, exc.message)
        return None, exc.status
