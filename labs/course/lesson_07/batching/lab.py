"""The batching lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, yes_no
from labs.course.lesson_07.batching import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "minutes",
        gettext_noop("How many minutes will sending every message take?"),
        gettext_noop(
            "Each worker sent %(per_worker_per_s)s messages a second in batches of "
            "%(batch)s, so %(workers)s workers sent %(sent_per_s)s a second (the provider "
            "allows %(limit_per_s)s): %(messages)s messages took %(minutes)s minutes."
        ),
        high=120,
        step=0.5,
        unit=gettext_noop("min"),
    ),
    Prompt(
        "throttled",
        gettext_noop("Will the provider's limit hold the workers back?"),
        gettext_noop(
            "The workers could send %(sent_per_s)s a second against the provider's limit "
            "of %(limit_per_s)s; the limit keeps "
            "%(useful_workers)s workers busy, and there were %(workers)s."
        ),
        choices=yes_no(
            gettext_noop("Yes, the limit holds them back"), gettext_noop("No, it does not")
        ),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "minutes_batched": gettext_noop("batched: minutes"),
    "minutes_single": gettext_noop("one at a time: minutes"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="batching",
    unit="lesson-07",
    title=gettext_noop("Send in batches: one call for many messages"),
    intro=gettext_noop(
        "Each call to the SMS provider costs a round trip. Put many messages in one "
        "call and see how the fan-out time falls, until the provider's own limit "
        "stops it: workers beyond that limit are only throttled."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Send 500 messages per call: how much faster, and what stops it?"),
            {"batch": 500},
        ),
        TryNext(
            gettext_noop("Go back to one per call with 400 workers: do the extra workers help?"),
            {"batch": 1, "workers": 400},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Every call of the same size takes exactly the same time, and the provider accepts "
        "exactly its limit each second. Refused messages are only counted here; a real sender "
        "retries them, which costs more calls and time. Calls that fail or time out and a "
        "batch that fails as a whole are left out, so the minutes here are optimistic."
    ),
)
