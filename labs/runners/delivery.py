"""At-least-once delivery with a plain and an idempotent consumer (Lessons 07 and 13).

Both lessons tell the same story with different things in the queue, SMS in Lesson 07
(`labs/course/lesson_07/at_least_once/`) and fee payments in Lesson 13
(`labs/course/lesson_13/idempotent_charges/`), so one `DeliveryLab` serves both, each
lab's folder giving it its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import past_the_last, table
from labs.sim import consume, deliver_at_least_once
from labs.text import gettext, gettext_noop, listed, num

REPEATS_LABEL = gettext_noop("Delivered again")


@dataclass(frozen=True)
class Words:
    """Every sentence of one telling, whole, so each language can word it its own way.

    Marked with `gettext_noop`; translated where they are shown (the form, the headline,
    the chart), so a result stores only English keys. `left_out` is the one sentence that
    depends on a count, so it is a function calling `ngettext` in the reader's language.
    """

    messages_label: str
    messages_help: str
    repeats_help: str
    # For that many numbers in `repeats` past the last message: %(numbers)s, %(n)s, %(field)s
    left_out: Callable[[int], str]
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
    figures: tuple[Figure, ...] = ()
    params: tuple[Param, ...] = field(init=False)

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
                REPEATS_LABEL,
                "int_list",
                list(self.repeats),
                self.words.repeats_help,
                min=1,
                max=1_000,
                max_items=50,
                group=gettext_noop("The queue"),
            ),
        )
        object.__setattr__(self, "params", params)

    def run(self, params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
        """Deliver, then let a plain and an idempotent consumer act on the same deliveries."""
        ids = [f"{self.prefix}-{n}" for n in range(1, params["messages"] + 1)]
        # A number past the last message is left out, and the headline says so.
        again = [f"{self.prefix}-{n}" for n in params["repeats"] if n <= params["messages"]]
        deliveries = deliver_at_least_once(ids, again)
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
        lines = [
            gettext(self.words.made) % made,
            acted,
            gettext(self.words.idempotent) % {"n": num(idem)},
        ]
        past = past_the_last(result["params"]["repeats"], s["messages"])
        if past:
            left_out = self.words.left_out(len(past)) % {
                "numbers": listed([str(n) for n in past], gettext("and")),
                "n": str(s["messages"]),
                "field": gettext(REPEATS_LABEL),
            }
            lines.insert(0, left_out)
        return lines

    def runner(self) -> LabRunner:
        """This telling as a lab's runner declares itself to the site."""
        return LabRunner(
            params=self.params,
            run=self.run,
            headline=self.headline,
            figures=self.figures,
        )


def _running_sum(flags: list[bool]) -> list[int]:
    total, out = 0, []
    for flag in flags:
        total += flag
        out.append(total)
    return out
