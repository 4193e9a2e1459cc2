"""The backoff lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue import retry_snippets
from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.backoff import charts, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "full_total_ms",
        gettext_noop("With full jitter, how long will all the waits add up to?"),
        gettext_noop(
            "Without jitter the waits double from %(base_ms)s ms up to the cap of "
            "%(cap_ms)s ms, %(none_total_ms)s ms in all; full jitter draws each wait "
            "between 0 and that, and this seed's waits came to %(full_total_ms)s ms."
        ),
        high=20000,
        step=100,
        unit=gettext_noop("ms"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "retry": gettext_noop("retry"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="backoff",
    unit="lesson-13",
    title=gettext_noop("Backoff: the wait before each retry, with and without jitter"),
    intro=gettext_noop(
        "Each retry waits twice as long as the one before, up to a cap. Jitter adds a "
        "random part; compare the three kinds."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Lower the cap to 800 ms: from which retry do the waits stop growing?"),
            {"cap_ms": 800.0},
        ),
    ),
    in_production=retry_snippets.retries,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "It draws the waits of one client on its own: it does not say whether a retry succeeds "
        "or what the retries do to the service. Each wait starts the moment the last try "
        "failed, as if a try took no time; a real retry also waits for its own call to fail or "
        "time out, so the time to give up is longer than the waits added up here."
    ),
)
