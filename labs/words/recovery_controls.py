"""The capstone's recovery controls in words, as its runner, charts, report and forms say them.

Django-free and model-free (words through `labs.text`), so the charts may read it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.text import gettext, gettext_noop, num

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
