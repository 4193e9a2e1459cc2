"""The retention lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.retention import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "expired",
        gettext_noop("How many messages will expire before anyone works on them?"),
        gettext_noop(
            "The outage lasted %(outage_h)s h and the oldest message reached "
            "%(oldest_age_max_h)s h, against a retention of %(source_retention_h)s h: "
            "%(expired)s expired, and %(parked)s poison messages were parked in the DLQ."
        ),
        high=10000,
        step=100,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "dlq_expired": gettext_noop("deleted from the DLQ by retention"),
    "expired": gettext_noop("deleted by retention"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="retention",
    unit="lesson-12",
    title=gettext_noop("Retention: old messages are deleted, and a DLQ must keep them longer"),
    intro=gettext_noop(
        "The workers stop for a few days while messages keep arriving. Watch the oldest "
        "message's age against the queue's retention, and see how long the poison "
        "messages parked afterwards really stay in the DLQ."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Give the DLQ the same 4 days as its queue: are parked messages lost now?"
            ),
            {"dlq_retention_h": 96},
        ),
        TryNext(
            gettext_noop("Stop the workers for 5 days: what happens to the oldest messages?"),
            {"outage_h": 120},
        ),
        TryNext(
            gettext_noop(
                "Same 4-day DLQ on a FIFO queue: does the clock restarting in the DLQ help?"
            ),
            {"dlq_retention_h": 96, "queue_type": "fifo"},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Time moves in whole hours: each hour's messages arrive together at its start, the "
        "workers do the same number every hour outside the outage and none during it, and a "
        "poison message is parked in the hour it is first tried. Real arrivals and speeds "
        "vary, so the hour a message expires here can be off by about an hour either way. A "
        "review of the DLQ counts here as seeing every message parked in it; a real person may "
        "look and still not fix them in time, so the number seen is optimistic."
    ),
)
