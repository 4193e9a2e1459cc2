"""Idempotent charges (Lesson 13): the at-least-once telling's words for fee payments."""

from __future__ import annotations

from labs.interface.figures import Figure
from labs.runners.delivery import DeliveryLab, Words
from labs.text import gettext_noop, ngettext

PAYMENT_FIGURES = (
    Figure("messages", gettext_noop("Payments"), "int"),
    Figure("deliveries", gettext_noop("Deliveries"), "int"),
    Figure("plain_charges", gettext_noop("Fees charged by a plain worker"), "int"),
    Figure("idempotent_charges", gettext_noop("Fees charged by an idempotent worker"), "int"),
    Figure("duplicates_plain", gettext_noop("Double charges (plain)"), "int"),
    Figure("duplicates_idempotent", gettext_noop("Double charges (idempotent)"), "int"),
)


def _left_out(count: int) -> str:
    """What a run with fewer payments than "Delivered again" names says about the rest."""
    return ngettext(
        "Payment %(numbers)s is not put on the queue: this run stops at payment %(n)s, so "
        "its entries under '%(field)s' are left out.",
        "Payments %(numbers)s are not put on the queue: this run stops at payment %(n)s, so "
        "their entries under '%(field)s' are left out.",
        count,
    )


PAYMENTS = DeliveryLab(
    prefix="pay",
    effect="charges",
    words=Words(
        messages_label=gettext_noop("Payments put on the queue"),
        messages_help=gettext_noop("They are numbered pay-1, pay-2, and so on."),
        repeats_help=gettext_noop(
            "Numbers of the payments the queue hands out once more (a worker crashed before it "
            "said 'done'). List a number twice for a third delivery."
        ),
        left_out=_left_out,
        made=gettext_noop("The queue made %(deliveries)s deliveries of %(n)s payments."),
        plain=gettext_noop("A plain consumer acts on every delivery: %(n)s fees charged."),
        plain_extra=gettext_noop(
            "A plain consumer acts on every delivery: %(n)s fees charged, %(extra)s too many."
        ),
        idempotent=gettext_noop(
            "An idempotent consumer checks 'already done?' first: %(n)s fees charged, one for "
            "each payment."
        ),
        table_title=gettext_noop("Each payment"),
        column=gettext_noop("payment"),
        chart_title=gettext_noop("Each payment: deliveries and fees charged"),
        chart_plain=gettext_noop("fees charged: plain consumer"),
        chart_idempotent=gettext_noop("fees charged: idempotent consumer"),
    ),
    messages=4,
    repeats=(2, 4, 4),
    figures=PAYMENT_FIGURES,
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = PAYMENTS.runner()
