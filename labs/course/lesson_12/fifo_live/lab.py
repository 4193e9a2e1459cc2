"""The fifo-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.fifo_live import charts, production, run
from labs.interface.live import LiveNumber, LiveView
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "standard_out_of_order",
        gettext_noop("On the standard queue, how many updates will be done out of order?"),
        gettext_noop(
            "%(workers)s workers took updates from the standard queue side by side: "
            "%(standard_out_of_order)s of %(updates)s were done out of order; the FIFO "
            "queue had %(fifo_out_of_order)s out of order, but its groups waited "
            "%(fifo_blocked_s)s s behind the poison message."
        ),
        high=20,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "fifo_dlq": gettext_noop("FIFO: in the DLQ"),
    "fifo_waiting": gettext_noop("FIFO: waiting"),
    "standard_dlq": gettext_noop("standard: in the DLQ"),
    "standard_waiting": gettext_noop("standard: waiting"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="fifo-live",
    unit="lesson-12",
    title=gettext_noop("On real queues: standard or FIFO? Order, duplicates and a blocked group"),
    intro=gettext_noop(
        "The same updates for a few students go into a standard queue and a FIFO queue "
        "at once; some are sent twice and one can never be applied. See which queue "
        "keeps each student's order, which drops the copies, and whom the poison update "
        "holds up."
    ),
    charts=charts.build,
    live=LiveView(
        (
            LiveNumber("standard_done", gettext_noop("Applied, standard")),
            LiveNumber("fifo_done", gettext_noop("Applied, FIFO")),
            LiveNumber("standard_dlq", gettext_noop("DLQ, standard")),
            LiveNumber("fifo_dlq", gettext_noop("DLQ, FIFO")),
            LiveNumber("fifo_blocked_groups", gettext_noop("FIFO groups waiting")),
        ),
        charts.live_chart,
    ),
    try_next=(
        TryNext(
            gettext_noop("Resend each copy 1.5 s later, past the dedup window: what does FIFO do?"),
            {"resend_after_s": 1.5},
        ),
        TryNext(
            gettext_noop(
                "Set maxReceiveCount to 5: how long does the poison update hold its student?"
            ),
            {"max_receives": 5},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Both queues are built on Redis with Amazon SQS's rules; they are not SQS itself. "
        "Times are cut to tens of milliseconds and a visibility timeout of at most a second, "
        "so a poison message holds up its student for a few seconds at most here, where SQS's "
        "default visibility timeout of 30 s would hold it for minutes. A real standard queue "
        "sometimes delivers a message twice on its own, with no resend and no crash; here a "
        "copy comes only from a resend or a receive whose visibility timeout ran out, so the "
        "standard queue's duplicates here are optimistic."
    ),
)
