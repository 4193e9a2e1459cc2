"""The provider-outage lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_07.provider_outage import charts, production, run
from labs.interface.live import LiveNumber, LiveView
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "oldest_age_max_min",
        gettext_noop("How old, in minutes, will the oldest waiting job get?"),
        gettext_noop(
            "The provider was down for %(down_for_min)s minutes while %(arrivals_per_min)s "
            "jobs a minute kept arriving; %(workers)s workers cleared the backlog by minute "
            "%(backlog_cleared_min)s, and the oldest job waited %(oldest_age_max_min)s "
            "minutes."
        ),
        high=30,
        step=0.5,
        unit=gettext_noop("min"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "provider_down": gettext_noop("provider down"),
    "throttled": gettext_noop("throttled"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="provider-outage",
    unit="lesson-07",
    title=gettext_noop("On a real queue: a 10-minute outage at the SMS provider"),
    intro=gettext_noop(
        "The front keeps accepting jobs while the provider is down: they wait in the "
        "queue, the oldest job's age climbs past the alarm, and after the provider comes "
        "back the workers catch up. Then give the workers more than the provider allows."
    ),
    charts=charts.build,
    live=LiveView(
        (
            LiveNumber("t_min", gettext_noop("Lesson minute")),
            LiveNumber("visible", gettext_noop("Waiting"), gettext_noop("jobs")),
            LiveNumber("done", gettext_noop("Sent"), gettext_noop("jobs")),
            LiveNumber("oldest_age_min", gettext_noop("Oldest job"), gettext_noop("min")),
            LiveNumber("throttled", gettext_noop("Refused with 429")),
        ),
        charts.live_chart,
    ),
    try_next=(
        TryNext(
            gettext_noop(
                "Set maxReceiveCount to 5: does the outage push healthy jobs into the DLQ?"
            ),
            {"max_receives": 5},
        ),
        TryNext(
            gettext_noop("Run 12 workers against the provider's limit of 4: faster, or only 429s?"),
            {"workers": 12},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The lesson's minutes are squeezed into fractions of a second, jobs arrive at an even "
        "rate, and the stand-in provider is either fully up or fully down, with every call "
        "taking the same time. A real outage often starts and ends gradually, with slow or "
        "partly failing calls. The front's answer time is one write to Redis with nothing else "
        "to do, and the alarm reads the queue several times a lesson minute, more often than a "
        "real monitoring system checks; so the front's times here are optimistic, and the "
        "alarm fires and clears sooner than it would in production."
    ),
)
