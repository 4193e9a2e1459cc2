"""The breaker-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_13.breaker_live import charts, production, run
from labs.interface.live import QUEUE_NUMBERS, LiveNumber, LiveView
from labs.text import gettext_noop


def _breaker_live_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"down_s": params["down_for_s"]}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "failed_fast",
        gettext_noop("How many calls will the breaker turn away without trying the service?"),
        gettext_noop(
            "The service was down for %(down_s)s s; the breaker opened after every "
            "%(fail_max)s failures (openings: %(opened)s), so %(failed_fast)s calls failed "
            "fast and only %(reached_sick_service)s reached the sick service."
        ),
        high=300,
        step=5,
        extra=_breaker_live_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "breaker_level": gettext_noop("breaker state (level)"),
    "breaker_state": gettext_noop("breaker state"),
    "service_down": gettext_noop("service down"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="breaker-live",
    unit="lesson-13",
    title=gettext_noop("On a real queue: one circuit breaker shared by all workers"),
    intro=gettext_noop(
        "Every worker keeps the breaker's state in Redis, so when calls to the payments "
        "service keep failing it opens for all of them at once. Watch its real state "
        "change through an outage."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Open after 2 failures: how many calls reach the failing service?"),
            {"fail_max": 2},
        ),
        TryNext(
            gettext_noop(
                "Stay open for 2 s: how long after the service is back do payments still wait?"
            ),
            {"reset_timeout_s": 2.0},
        ),
    ),
    live=LiveView(
        (LiveNumber("breaker_state", gettext_noop("Breaker")), *QUEUE_NUMBERS),
        charts.live_chart,
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
)
