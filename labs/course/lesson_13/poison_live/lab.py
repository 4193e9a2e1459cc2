"""The poison-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.poison_live import charts, production, run
from labs.interface.live import QUEUE_NUMBERS, LiveNumber, LiveView
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "receives_mr3",
        gettext_noop("With 3 receives allowed, how many receives will the real queue make?"),
        gettext_noop(
            "%(made_mr3)s messages succeeded at once; the %(poison)s poison messages were "
            "received until the DLQ took them: %(receives_mr3)s receives in all "
            "(%(receives_mr1)s with 1 allowed, %(receives_mr5)s with 5)."
        ),
        high=60,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "max_receives": gettext_noop("maxReceiveCount"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="poison-live",
    unit="lesson-13",
    title=gettext_noop("On a real queue: poison messages reach the DLQ"),
    intro=gettext_noop(
        "PDF jobs through a real Redis queue for maxReceiveCount 1, 3 and 5. The poison "
        "ones are parked in the dead-letter queue with their receive count and last "
        "error; afterwards, open the DLQ in the queue panel and redrive it."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Poison three PDFs instead of two: does anything but them reach the DLQ?"),
            {"poison": [1, 3, 7]},
        ),
        TryNext(
            gettext_noop("Use 4 workers: do the good PDFs finish sooner?"),
            {"workers": 4},
        ),
    ),
    live=LiveView(
        (
            LiveNumber("max_receives", gettext_noop("maxReceiveCount now")),
            *QUEUE_NUMBERS[:-1],
            LiveNumber("receives", gettext_noop("Receives")),
        ),
        charts.live_chart,
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The queue is Redis with Amazon SQS's rules, not SQS, and the visibility timeout is at "
        "most 2 s here so a run takes seconds; with SQS's default of 30 s, each failed receive "
        "would hold a poison message for half a minute. The workers are threads in one process "
        "rather than separate machines. The redrive after the fix makes every parked job, "
        "because the fix here is certain; a real fix may still fail some."
    ),
)
