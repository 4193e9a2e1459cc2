"""A retried payment (Lesson 13): the client times out, tries again, and is charged twice,
unless an idempotency key makes the provider return the first answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, within_limits
from labs.interface.progress import Progress
from labs.runners.common import past_the_last, table
from labs.sim.retried_payment import LIMITS, play_payments
from labs.text import gettext, gettext_noop, listed, ngettext, num, phrase

PAYMENTS = gettext_noop("The payments")
CLIENT = gettext_noop("The client")
LATE_LABEL = gettext_noop("Answers that come late")


def _bounded(name: str, label: str, default: int, help_text: str, **more: Any) -> Param:
    return within_limits(LIMITS, name, label, "int", default, help_text, **more)


PARAMS = (
    _bounded(
        "payments",
        gettext_noop("Fee payments"),
        4,
        gettext_noop("Parents paying a fee, numbered 1, 2, and so on."),
        group=PAYMENTS,
    ),
    Param(
        "late",
        LATE_LABEL,
        "int_list",
        [2, 4, 4],
        gettext_noop(
            "Numbers of the payments whose next answer comes after the client's timeout: "
            "the provider has charged, but the client has stopped waiting. List a number "
            "twice for two late answers in a row."
        ),
        min=1,
        max=LIMITS["payments"][1],
        max_items=50,
        group=PAYMENTS,
    ),
    _bounded(
        "provider_ms",
        gettext_noop("An answer in time takes"),
        200,
        gettext_noop("How long the provider takes to charge and answer."),
        group=PAYMENTS,
        unit=gettext_noop("ms"),
    ),
    _bounded(
        "timeout_ms",
        gettext_noop("The client waits at most"),
        1_000,
        gettext_noop("After this long without an answer the client gives up on the call."),
        group=CLIENT,
        unit=gettext_noop("ms"),
    ),
    _bounded(
        "retries",
        gettext_noop("Retries per payment"),
        3,
        gettext_noop("How many more times the client calls after a timeout."),
        group=CLIENT,
    ),
    _bounded(
        "pause_ms",
        gettext_noop("Pause before a retry"),
        200,
        gettext_noop("How long the client waits after a timeout before it calls again."),
        group=CLIENT,
        unit=gettext_noop("ms"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """An answer in time beats the timeout. A late payment past the last is not refused:
    the run leaves it out and the headline says so (`_left_out`)."""
    errors = {}
    if params["provider_ms"] >= params["timeout_ms"]:
        errors["provider_ms"] = gettext(
            "An answer in time must come before the client gives up: less than %(timeout)s ms."
        ) % {"timeout": num(params["timeout_ms"])}
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play every payment's calls; no randomness, so the seed is not used."""
    given = {p.name: params[p.name] for p in PARAMS}
    given["late"] = [n for n in params["late"] if n <= params["payments"]]
    played = play_payments(**given)
    progress.update(1, 1)
    payments = played.payments
    gave_up = [p.number for p in payments if not p.told_ok]
    return {
        "summary": {
            "payments": len(payments),
            "calls": len(played.calls),
            "late_answers": played.late_answers,
            "charges_without_key": played.charges_without_key,
            "charges_with_key": played.charges_with_key,
            "double_charges_without_key": played.charges_without_key - len(payments),
            "double_charges_with_key": played.charges_with_key - len(payments),
            "payments_charged_twice_without_key": sum(p.calls > 1 for p in payments),
            "answered_from_key": played.answered_from_key,
            "charged_but_told_failed": len(gave_up),
            "longest_wait_ms": max(p.waited_ms for p in payments),
        },
        "series": {
            "payment": [p.number for p in payments],
            "calls": [p.calls for p in payments],
            "charges_without_key": [p.charges_without_key for p in payments],
            "charges_with_key": [p.charges_with_key for p in payments],
            "waited_ms": [p.waited_ms for p in payments],
        },
        "tables": {
            "each_call": table(
                gettext_noop("Each call the client made"),
                [
                    gettext_noop("payment"),
                    gettext_noop("try"),
                    gettext_noop("answer"),
                    gettext_noop("charge without a key"),
                    gettext_noop("answer with a key"),
                ],
                [
                    [
                        c.payment,
                        c.attempt,
                        gettext_noop("late") if c.late else gettext_noop("in time"),
                        c.charge_without_key,
                        c.charge_with_key
                        if c.charged_with_key
                        else _phrase_first(c.charge_with_key),
                    ]
                    for c in played.calls
                ],
            ),
        },
    }


def _left_out(late: list[int], payments: int) -> list[str]:
    """The sentence for late answers the run left out: those of payments past the last
    (the student's list stays as typed when the number of payments moves down)."""
    past = past_the_last(late, payments)
    if not past:
        return []
    sentence = ngettext(
        "Payment %(numbers)s is not in this run, which stops at payment %(n)s, so its "
        "entries under '%(field)s' are left out.",
        "Payments %(numbers)s are not in this run, which stops at payment %(n)s, so their "
        "entries under '%(field)s' are left out.",
        len(past),
    )
    return [
        sentence
        % {
            "numbers": listed([str(n) for n in past], gettext("and")),
            "n": str(payments),
            "field": gettext(LATE_LABEL),
        }
    ]


def _phrase_first(charge: str) -> dict[str, Any]:
    """The cell of a retry a key answered: the first charge again, said in the reader's words."""
    return phrase(gettext_noop("%(charge)s again, no new charge"), charge=charge)


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    words = {
        "payments": num(s["payments"]),
        "calls": num(s["calls"]),
        "late": num(s["late_answers"]),
        "timeout": num(p["timeout_ms"]),
        "without": num(s["charges_without_key"]),
        "extra": num(s["double_charges_without_key"]),
        "twice": num(s["payments_charged_twice_without_key"]),
        "with": num(s["charges_with_key"]),
        "from_key": num(s["answered_from_key"]),
        "failed": num(s["charged_but_told_failed"]),
        "wait": num(s["longest_wait_ms"]),
    }
    lines = _left_out(p["late"], s["payments"])
    lines.append(
        ngettext(
            "%(payments)s payments made %(calls)s calls: %(late)s answer came after the "
            "client's %(timeout)s ms timeout, and every call reached the provider, which "
            "charged before it answered.",
            "%(payments)s payments made %(calls)s calls: %(late)s answers came after the "
            "client's %(timeout)s ms timeout, and every call reached the provider, which "
            "charged before it answered.",
            s["late_answers"],
        )
        % words
    )
    if s["double_charges_without_key"]:
        lines.append(
            ngettext(
                "Without an idempotency key every call was a new charge: %(without)s charges "
                "for %(payments)s payments, %(extra)s of them extra, on %(twice)s payment.",
                "Without an idempotency key every call was a new charge: %(without)s charges "
                "for %(payments)s payments, %(extra)s of them extra, on %(twice)s payments.",
                s["payments_charged_twice_without_key"],
            )
            % words
        )
    else:
        lines.append(
            gettext(
                "With no retry, nothing was charged twice even without an idempotency key: "
                "%(without)s charges for %(payments)s payments."
            )
            % words
        )
    if s["answered_from_key"]:
        lines.append(
            gettext(
                "With the payment's id as its idempotency key the provider charged once per "
                "payment, %(with)s charges and 0 extra, and answered %(from_key)s retries in "
                "time with the first charge."
            )
            % words
        )
    else:
        lines.append(
            gettext(
                "With the payment's id as its idempotency key the provider charged once per "
                "payment: %(with)s charges and 0 extra."
            )
            % words
        )
    if s["charged_but_told_failed"]:
        lines.append(
            ngettext(
                "The client gave up on %(failed)s payment with no answer in time: its parent "
                "was told the payment failed, yet the money had gone, with or without a key. "
                "Such a payment goes to reconciliation, never to a blind new charge.",
                "The client gave up on %(failed)s payments with no answer in time: their "
                "parents were told the payment failed, yet the money had gone, with or "
                "without a key. Such a payment goes to reconciliation, never to a blind new "
                "charge.",
                s["charged_but_told_failed"],
            )
            % words
        )
    lines.append(gettext("The slowest payment kept its parent waiting %(wait)s ms.") % words)
    return lines


FIGURES = (
    Figure("payments", gettext_noop("Payments"), "int"),
    Figure("calls", gettext_noop("Calls the client made"), "int"),
    Figure("late_answers", gettext_noop("Answers after the timeout"), "int"),
    Figure("charges_without_key", gettext_noop("Charges without a key"), "int"),
    Figure("charges_with_key", gettext_noop("Charges with a key"), "int"),
    Figure("double_charges_without_key", gettext_noop("Extra charges without a key"), "int"),
    Figure("double_charges_with_key", gettext_noop("Extra charges with a key"), "int"),
    Figure(
        "payments_charged_twice_without_key",
        gettext_noop("Payments charged more than once without a key"),
        "int",
    ),
    Figure(
        "answered_from_key",
        gettext_noop("Retries answered with the first charge"),
        "int",
    ),
    Figure(
        "charged_but_told_failed",
        gettext_noop("Payments charged but told they failed"),
        "int",
    ),
    Figure(
        "longest_wait_ms",
        gettext_noop("Longest wait for a payment's answer"),
        "int",
        gettext_noop("ms"),
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
