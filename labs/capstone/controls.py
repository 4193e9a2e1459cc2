"""The capstone's recovery controls in words, and the before/after pair made from one form.

Django-free: the trapped-service runner, its charts, the report and the forms all read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.sim.capstone import RECOMMENDED_CONTROLS
from labs.text import gettext, gettext_noop, num

# Every recovery control switched off: the "before" of a before/after pair.
CONTROLS_OFF: dict[str, Any] = {
    "admission_limit": False,
    "limit_retries": False,
    "drop_expired": False,
    "drop_payments": False,
    "reconcile_payments": False,
    "reserve_share": 0.0,
}

# Each payment state in a few words, as the charts and the operator view name it.
# Marked for the catalogue; the operator view translates them when it shows them.
PAYMENT_WORDS = {
    "confirmed": gettext_noop("confirmed (caller heard 'paid')"),
    "reconciled": gettext_noop("reconciled later"),
    "failed": gettext_noop("refused (caller told)"),
    "pending": gettext_noop("pending (caller still trying)"),
    "reconciling": gettext_noop("reconciling (owner working on it)"),
    "unknown": gettext_noop("unknown (nobody owns it)"),
    "lost": gettext_noop("lost (no record left)"),
}


def control_words(params: Mapping[str, Any]) -> dict[str, str]:
    """The recovery controls a run switched on, by param name, in the reader's words."""
    on = {}
    if params["admission_limit"]:
        ramp = params["reopen_ramp_s"]
        rate = num(params["admit_rps"])
        if ramp:
            on["admission_limit"] = gettext(
                "admission limit of %(rate)s/s, reopened over %(ramp)s s"
            ) % {"rate": rate, "ramp": num(ramp)}
        else:
            on["admission_limit"] = gettext("admission limit of %(rate)s/s, reopened at once") % {
                "rate": rate
            }
    if params["limit_retries"]:
        on["limit_retries"] = gettext("retry budget of %(n)s per new request") % {
            "n": num(params["retry_budget"])
        }
    if params["drop_expired"]:
        on["drop_expired"] = gettext("drop expired reads")
    if params["drop_payments"]:
        on["drop_payments"] = gettext("drop expired payments too (naive)")
    if params["reconcile_payments"]:
        on["reconcile_payments"] = gettext("reconcile timed-out payments")
    if params["reserve_share"]:
        share = num(round(100 * params["reserve_share"], 1))
        on["reserve_share"] = gettext("%(share)s%% of workers kept for fresh work") % {
            "share": share
        }
    return on


def controls_on(params: Mapping[str, Any]) -> list[str]:
    """The recovery controls a run switched on, in words: 'retry budget of 0.1 per ...'.

    Words for a page being rendered: a worker only asks whether the list is empty."""
    return list(control_words(params).values())


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
