"""The at-least-once lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.charts import delivery as delivery_charts
from labs.course.lesson_07.at_least_once import run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "duplicates_plain",
        gettext_noop("How many parents will get the same text twice from the plain sender?"),
        gettext_noop(
            "%(messages)s messages were delivered %(deliveries)s times; the plain sender "
            "sent on every delivery (%(duplicates_plain)s extra texts), the idempotent one "
            "sent %(idempotent_sent)s in all."
        ),
        high=20,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="at-least-once",
    unit="lesson-07",
    title=gettext_noop("At-least-once delivery: the same SMS twice"),
    intro=gettext_noop(
        "The queue hands one message out again after a worker crashed. Count what a "
        "plain consumer and an idempotent consumer send."
    ),
    charts=delivery_charts.build,
    try_next=(
        TryNext(
            gettext_noop("Hand out every SMS once more: how many does each consumer send?"),
            {"repeats": [1, 2, 3]},
        ),
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "You choose which messages come back, and each repeat arrives straight after its first "
        "delivery. The idempotent consumer here records an SMS as done in the same instant it "
        "sends it, so a crash between the two cannot happen; in a real system it can, and the "
        "SMS goes twice unless the send and the record are made together. Two workers holding "
        "the same message at once are left out too, so the idempotent consumer's zero "
        "duplicates is the best case."
    ),
)
