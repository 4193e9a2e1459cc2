"""At-least-once delivery with a plain and an idempotent consumer (Lessons 07 and 13).

Both lessons tell the same story with different things in the queue, SMS in Lesson 07
and fee payments in Lesson 13, so one `DeliveryLab` serves both with its own words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from labs.interface.figures import Figure
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import consume, deliver_at_least_once
from labs.text import gettext, gettext_noop, listed, num


@dataclass(frozen=True)
class Words:
    """Every sentence of one telling, whole, so each language can word it its own way.

    Marked with `gettext_noop`; translated where they are shown (the form, the headline,
    the chart), so a result stores only English keys.
    """

    messages_label: str
    messages_help: str
    repeats_help: str
    unknown: str  # %(numbers)s, %(n)s
    made: str  # %(deliveries)s, %(n)s
    plain: str  # %(n)s
    plain_extra: str  # %(n)s, %(extra)s
    idempotent: str  # %(n)s
    table_title: str
    column: str
    chart_title: str
    chart_plain: str
    chart_idempotent: str


@dataclass(frozen=True)
class DeliveryLab:
    """One telling of the story: what the messages are and what acting on one means."""

    prefix: str  # message ids are prefix-1, prefix-2, ...
    effect: str  # what a consumer does: "sent", "charges"; summary keys use it
    words: Words
    messages: int  # the lesson's defaults
    repeats: tuple[int, ...]
    # Read by `Lab.from_runner` as it reads a runner module's; upper case to match.
    FIGURES: tuple[Figure, ...] = ()
    PARAMS: tuple[Param, ...] = field(init=False)

    def __post_init__(self) -> None:
        params = (
            Param(
                "messages",
                self.words.messages_label,
                "int",
                self.messages,
                self.words.messages_help,
                min=1,
                max=1_000,
                group=gettext_noop("The queue"),
            ),
            Param(
                "repeats",
                gettext_noop("Delivered again"),
                "int_list",
                list(self.repeats),
                self.words.repeats_help,
                min=1,
                max=1_000,
                max_items=50,
                group=gettext_noop("The queue"),
            ),
        )
        object.__setattr__(self, "PARAMS", params)

    def check(self, params: Mapping[str, Any]) -> dict[str, str]:
        """Only messages that were put on the queue can come back."""
        unknown = sorted({n for n in params["repeats"] if n > params["messages"]})
        if unknown:
            numbers = listed([str(n) for n in unknown], gettext("and"))
            return {
                "repeats": gettext(self.words.unknown)
                % {"numbers": numbers, "n": params["messages"]}
            }
        return {}

    def run(self, params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
        """Deliver, then let a plain and an idempotent consumer act on the same deliveries."""
        ids = [f"{self.prefix}-{n}" for n in range(1, params["messages"] + 1)]
        deliveries = deliver_at_least_once(ids, [f"{self.prefix}-{n}" for n in params["repeats"]])
        plain = consume(deliveries, idempotent=False)
        idempotent = consume(deliveries, idempotent=True)
        # The idempotent consumer acts on the first delivery of each message only.
        first = [deliveries.index(m) == i for i, m in enumerate(deliveries)]
        progress.update(1, 1)
        return {
            "summary": {
                "messages": len(ids),
                "deliveries": len(deliveries),
                f"plain_{self.effect}": len(plain),
                f"idempotent_{self.effect}": len(idempotent),
                "duplicates_plain": len(plain) - len(ids),
                "duplicates_idempotent": len(idempotent) - len(ids),
            },
            "series": {
                "delivery": list(range(1, len(deliveries) + 1)),
                "message": deliveries,
                "plain_total": list(range(1, len(deliveries) + 1)),
                "idempotent_acted": [int(f) for f in first],
                "idempotent_total": _running_sum(first),
            },
            "tables": {
                # English msgids: the chart translates them when a page draws it.
                "words": {
                    "title": self.words.chart_title,
                    "x": self.words.column,
                    "plain": self.words.chart_plain,
                    "idempotent": self.words.chart_idempotent,
                },
                "per_message_data": {
                    "message": ids,
                    "delivered": [deliveries.count(m) for m in ids],
                    "plain": [plain.count(m) for m in ids],
                    "idempotent": [idempotent.count(m) for m in ids],
                },
                "per_message": table(
                    self.words.table_title,
                    [
                        self.words.column,
                        gettext_noop("delivered"),
                        gettext_noop("plain consumer"),
                        gettext_noop("idempotent consumer"),
                    ],
                    [[m, deliveries.count(m), plain.count(m), idempotent.count(m)] for m in ids],
                ),
            },
        }

    def headline(self, result: Mapping[str, Any]) -> list[str]:
        s = result["summary"]
        plain, idem = s[f"plain_{self.effect}"], s[f"idempotent_{self.effect}"]
        extra = s["duplicates_plain"]
        made = {"deliveries": num(s["deliveries"]), "n": num(s["messages"])}
        if extra:
            acted = gettext(self.words.plain_extra) % {"n": num(plain), "extra": num(extra)}
        else:
            acted = gettext(self.words.plain) % {"n": num(plain)}
        return [
            gettext(self.words.made) % made,
            acted,
            gettext(self.words.idempotent) % {"n": num(idem)},
        ]


def _running_sum(flags: list[bool]) -> list[int]:
    total, out = 0, []
    for flag in flags:
        total += flag
        out.append(total)
    return out


SMS_FIGURES = (
    Figure("messages", gettext_noop("Messages"), "int"),
    Figure("deliveries", gettext_noop("Deliveries"), "int"),
    Figure("plain_sent", gettext_noop("SMS sent by a plain consumer"), "int"),
    Figure("idempotent_sent", gettext_noop("SMS sent by an idempotent consumer"), "int"),
    Figure("duplicates_plain", gettext_noop("Duplicate SMS (plain)"), "int"),
    Figure("duplicates_idempotent", gettext_noop("Duplicate SMS (idempotent)"), "int"),
)

PAYMENT_FIGURES = (
    Figure("messages", gettext_noop("Payments"), "int"),
    Figure("deliveries", gettext_noop("Deliveries"), "int"),
    Figure("plain_charges", gettext_noop("Fees charged by a plain worker"), "int"),
    Figure("idempotent_charges", gettext_noop("Fees charged by an idempotent worker"), "int"),
    Figure("duplicates_plain", gettext_noop("Double charges (plain)"), "int"),
    Figure("duplicates_idempotent", gettext_noop("Double charges (idempotent)"), "int"),
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
        unknown=gettext_noop("There is no SMS %(numbers)s: the SMS are numbered 1 to %(n)s."),
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
    FIGURES=SMS_FIGURES,
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
        unknown=gettext_noop(
            "There is no payment %(numbers)s: the payments are numbered 1 to %(n)s."
        ),
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
    FIGURES=PAYMENT_FIGURES,
)
