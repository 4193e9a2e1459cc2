"""The breaker lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.breaker import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "fast_fail",
        gettext_noop("How many calls will the breaker fail fast?"),
        gettext_noop(
            "After %(threshold)s failures the breaker opened for %(open_s)s s at a time: "
            "%(fast_fail_while_down)s calls failed fast while the service was down and "
            "%(fast_fail_after_recovery)s after it was back, so the first success came "
            "%(late_by_s)s s after the recovery."
        ),
        high=100,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "dependency_ok": gettext_noop("dependency up"),
    "trial": gettext_noop("trial call"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="breaker",
    unit="lesson-13",
    title=gettext_noop("Circuit breaker over a dependency that goes down"),
    intro=gettext_noop(
        "A caller calls a dependency once a second through a breaker. Pick when the "
        "dependency is down and see which calls wait, which fail fast and when "
        "service returns."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Open after a single failure: how many calls fail fast now?"),
            {"threshold": 1},
        ),
        TryNext(
            gettext_noop(
                "Stay open for 60 s: how long after the dependency is back do calls still fail?"
            ),
            {"open_s": 60},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "One caller makes one call a second, and the dependency is either fully down or fully "
        "up, switching at an exact moment. A failed call here fails at once; a real one may "
        "hang until its timeout, so a real breaker takes longer to open. Real dependencies "
        "often fail only some calls or get slow before they fail, which a count of failures in "
        "a row can miss, and many callers each keep a breaker of their own that open at "
        "different times."
    ),
)
