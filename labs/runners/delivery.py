"""At-least-once delivery with a plain and an idempotent consumer (Lessons 07 and 13).

Both lessons tell the same story with different things in the queue, SMS in Lesson 07
and fee payments in Lesson 13, so one `DeliveryLab` serves both with its own words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param
from labs.runners.common import table
from labs.runs.progress import Progress
from labs.sim import consume, deliver_at_least_once
from labs.text import listed, num


@dataclass(frozen=True)
class DeliveryLab:
    """One telling of the story: what the messages are and what acting on one means."""

    prefix: str  # message ids are prefix-1, prefix-2, ...
    noun: str  # one message, as a student says it: "SMS", "payment"
    nouns: str
    effect: str  # what a consumer does: "sent", "charges"; summary keys use it
    effect_words: str  # "SMS sent", "fees charged"
    messages: int  # the lesson's defaults
    repeats: tuple[int, ...]
    # Read by `Lab.from_runner` as it reads a runner module's; upper case to match.
    FIGURES: tuple[Figure, ...] = ()
    PARAMS: tuple[Param, ...] = field(init=False)

    def __post_init__(self) -> None:
        params = (
            Param(
                "messages",
                f"{self.nouns.capitalize()} put on the queue",
                "int",
                self.messages,
                f"They are numbered {self.prefix}-1, {self.prefix}-2, and so on.",
                min=1,
                max=1_000,
                group="The queue",
            ),
            Param(
                "repeats",
                "Delivered again",
                "int_list",
                list(self.repeats),
                f"Numbers of the {self.nouns} the queue hands out once more (a worker "
                "crashed before it said 'done'). List a number twice for a third delivery.",
                min=1,
                max=1_000,
                max_items=50,
                group="The queue",
            ),
        )
        object.__setattr__(self, "PARAMS", params)

    def check(self, params: Mapping[str, Any]) -> dict[str, str]:
        """Only messages that were put on the queue can come back."""
        unknown = sorted({n for n in params["repeats"] if n > params["messages"]})
        if unknown:
            return {
                "repeats": f"There is no {self.noun} {listed(unknown)}: the "
                f"{self.nouns} are numbered 1 to {params['messages']}."
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
                "words": {"noun": self.noun, "nouns": self.nouns, "effect": self.effect_words},
                "per_message_data": {
                    "message": ids,
                    "delivered": [deliveries.count(m) for m in ids],
                    "plain": [plain.count(m) for m in ids],
                    "idempotent": [idempotent.count(m) for m in ids],
                },
                "per_message": table(
                    f"Each {self.noun}",
                    [self.noun, "delivered", "plain consumer", "idempotent consumer"],
                    [[m, deliveries.count(m), plain.count(m), idempotent.count(m)] for m in ids],
                ),
            },
        }

    def headline(self, result: Mapping[str, Any]) -> list[str]:
        s = result["summary"]
        plain, idem = s[f"plain_{self.effect}"], s[f"idempotent_{self.effect}"]
        extra = s["duplicates_plain"]
        return [
            f"The queue made {num(s['deliveries'])} deliveries of {num(s['messages'])} "
            f"{self.nouns}.",
            f"A plain consumer acts on every delivery: {num(plain)} {self.effect_words}"
            + (f", {num(extra)} too many." if extra else "."),
            f"An idempotent consumer checks 'already done?' first: {num(idem)} "
            f"{self.effect_words}, one for each {self.noun}.",
        ]


def _running_sum(flags: list[bool]) -> list[int]:
    total, out = 0, []
    for flag in flags:
        total += flag
        out.append(total)
    return out


SMS_FIGURES = (
    Figure("messages", "Messages", "int"),
    Figure("deliveries", "Deliveries", "int"),
    Figure("plain_sent", "SMS sent by a plain consumer", "int"),
    Figure("idempotent_sent", "SMS sent by an idempotent consumer", "int"),
    Figure("duplicates_plain", "Duplicate SMS (plain)", "int"),
    Figure("duplicates_idempotent", "Duplicate SMS (idempotent)", "int"),
)

PAYMENT_FIGURES = (
    Figure("messages", "Payments", "int"),
    Figure("deliveries", "Deliveries", "int"),
    Figure("plain_charges", "Fees charged by a plain worker", "int"),
    Figure("idempotent_charges", "Fees charged by an idempotent worker", "int"),
    Figure("duplicates_plain", "Double charges (plain)", "int"),
    Figure("duplicates_idempotent", "Double charges (idempotent)", "int"),
)


SMS = DeliveryLab(
    prefix="sms",
    noun="SMS",
    nouns="SMS",
    effect="sent",
    effect_words="SMS sent",
    messages=3,
    repeats=(2,),
    FIGURES=SMS_FIGURES,
)
PAYMENTS = DeliveryLab(
    prefix="pay",
    noun="payment",
    nouns="payments",
    effect="charges",
    effect_words="fees charged",
    messages=4,
    repeats=(2, 4, 4),
    FIGURES=PAYMENT_FIGURES,
)
