"""The before/after pair of the capstone report, made from one form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.sim.capstone import RECOMMENDED_CONTROLS
from labs.words.recovery_controls import controls_on

# Every recovery control switched off: the "before" of a before/after pair.
CONTROLS_OFF: dict[str, Any] = {
    "admission_limit": False,
    "limit_retries": False,
    "drop_expired": False,
    "drop_payments": False,
    "reconcile_payments": False,
    "reserve_share": 0.0,
}


def pair_params(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A before/after pair from one form: every control off, then the controls on.

    "On" means the controls the student ticked; with none ticked, the model's
    recommended set, so one click on the defaults shows the trap and the way out.
    """
    before = dict(params) | CONTROLS_OFF
    after = dict(params)
    if not controls_on(after):
        after |= RECOMMENDED_CONTROLS
    return before, after
