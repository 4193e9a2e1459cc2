"""The retry-storm lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue import retry_snippets
from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.retry_storm import charts, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "busiest_slot",
        gettext_noop("How many retries will land in the busiest slot?"),
        gettext_noop(
            "With no jitter all %(clients)s clients retried in the same slot "
            "(%(busiest_slot_no_jitter)s at once); the jitter you chose spread them so "
            "the busiest %(slot_ms)s ms slot held %(busiest_slot)s."
        ),
        high=2000,
        step=10,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "slot_start_ms": gettext_noop("slot start (ms)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="retry-storm",
    unit="lesson-13",
    title=gettext_noop("Retry storm: many clients retrying together"),
    intro=gettext_noop(
        "Hundreds of clients fail at the same moment and retry. Count the retries "
        "that hit the service in each 10 ms slot, without jitter and with it."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Try equal jitter: is the busiest slot calmer or busier than with full jitter?"
            ),
            {"jitter": "equal"},
        ),
    ),
    in_production=retry_snippets.retries,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Every client fails at the same instant, and a call takes no time. The service answers "
        "a fixed number of calls in each slot and fails the rest at once, without slowing "
        "down, and no new clients arrive during the storm. A real overloaded service also gets "
        "slower and keeps receiving new requests, so the busiest slots and total calls here "
        "are on the kind side."
    ),
)
