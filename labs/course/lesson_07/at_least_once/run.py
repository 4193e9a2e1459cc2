"""At-least-once delivery told with SMS (Lesson 07): the shared telling's words for SMS."""

from __future__ import annotations

from labs.interface.figures import Figure
from labs.runners.delivery import DeliveryLab, Words
from labs.text import gettext_noop, ngettext

SMS_FIGURES = (
    Figure("messages", gettext_noop("Messages"), "int"),
    Figure("deliveries", gettext_noop("Deliveries"), "int"),
    Figure("plain_sent", gettext_noop("SMS sent by a plain consumer"), "int"),
    Figure("idempotent_sent", gettext_noop("SMS sent by an idempotent consumer"), "int"),
    Figure("duplicates_plain", gettext_noop("Duplicate SMS (plain)"), "int"),
    Figure("duplicates_idempotent", gettext_noop("Duplicate SMS (idempotent)"), "int"),
)


def _left_out(count: int) -> str:
    """What a run with fewer SMS than "Delivered again" names says about the rest."""
    return ngettext(
        "SMS %(numbers)s is not put on the queue: this run stops at SMS %(n)s, so its "
        "entries under '%(field)s' are left out.",
        "SMS %(numbers)s are not put on the queue: this run stops at SMS %(n)s, so their "
        "entries under '%(field)s' are left out.",
        count,
    )


SMS = DeliveryLab(
    prefix="sms",
    effect="sent",
    words=Words(
        messages_label=gettext_noop("SMS put on the queue"),
        messages_help=gettext_noop("They are numbered sms-1, sms-2, and so on."),
        repeats_help=gettext_noop(
            "Numbers of the SMS the queue hands out once more (a worker crashed before it said "
            "'done'). List a number twice for a third delivery."
        ),
        left_out=_left_out,
        made=gettext_noop("The queue made %(deliveries)s deliveries of %(n)s SMS."),
        plain=gettext_noop("A plain consumer acts on every delivery: %(n)s SMS sent."),
        plain_extra=gettext_noop(
            "A plain consumer acts on every delivery: %(n)s SMS sent, %(extra)s too many."
        ),
        idempotent=gettext_noop(
            "An idempotent consumer checks 'already done?' first: %(n)s SMS sent, one for each SMS."
        ),
        table_title=gettext_noop("Each SMS"),
        column=gettext_noop("SMS"),
        chart_title=gettext_noop("Each SMS: deliveries and SMS sent"),
        chart_plain=gettext_noop("SMS sent: plain consumer"),
        chart_idempotent=gettext_noop("SMS sent: idempotent consumer"),
    ),
    messages=3,
    repeats=(2,),
    figures=SMS_FIGURES,
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = SMS.runner()
