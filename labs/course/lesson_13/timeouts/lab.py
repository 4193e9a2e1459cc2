"""The timeouts lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_13.timeouts import charts, production, run
from labs.text import gettext_noop


def _timeouts_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"timeout_s": params["timeout_ms"] / 1000}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "stuck_at_timeout",
        gettext_noop("With the timeout, how many calls will be waiting at once?"),
        gettext_noop(
            "Little's law: %(rate_per_s)s calls a second, each held at most "
            "%(timeout_s)s s, keep %(stuck_at_timeout)s waiting at once; with no timeout, up "
            "to %(most_stuck)s were stuck at once."
        ),
        high=10000,
        step=100,
        extra=_timeouts_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "wait_s": gettext_noop("wait (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="timeouts",
    unit="lesson-13",
    title=gettext_noop("Timeouts and Little's law: how many requests get stuck"),
    intro=gettext_noop(
        "A stuck service holds every caller that waits for it. Count the stuck "
        "requests for different waits, and see what a timeout does to each call."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Lower the timeout to 200 ms: which calls time out now?"),
            {"timeout_ms": 200.0},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Little's law here assumes every request is held for the whole wait, as when the "
        "service is stuck, and that requests keep arriving at one steady rate. The retries "
        "that often follow a timeout are left out; they add arrivals, so with them more "
        "requests would be stuck than the count at your timeout. A call is let go exactly at "
        "the timeout, where a real client may need longer to free its connection and thread."
    ),
)
