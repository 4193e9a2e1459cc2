"""The fanout lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_07.fanout import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "fastest_min",
        gettext_noop("With the most workers at the fastest rate, how many minutes will it take?"),
        gettext_noop(
            "%(jobs)s jobs shared by %(fastest_workers)s workers, each sending "
            "%(fastest_rate_per_s)s a second, take %(fastest_min)s minutes; the slowest "
            "setting took %(slowest_min)s minutes."
        ),
        high=120,
        step=0.5,
        unit=gettext_noop("min"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "rate_per_s": gettext_noop("rate (per second)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="fanout",
    unit="lesson-07",
    title=gettext_noop("Fan-out time: how many workers for 5 million SMS?"),
    intro=gettext_noop(
        "The request only puts jobs on a queue; the workers do the sending. Compare "
        "how long the work takes for several worker counts and speeds."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Halve the jobs to 2,500,000: does the time halve too?"),
            {"jobs": 2_500_000},
        ),
        TryNext(
            gettext_noop("Set the deadline to 30 minutes: how many workers does it take now?"),
            {"deadline_min": 30.0},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The time is the jobs divided by the workers' total rate: every worker sends at the "
        "same steady rate from the first second to the last. It leaves out the provider's own "
        "limit, failed sends and their retries, and the time workers need to start. So these "
        "times are the shortest the fan-out could take; a real one is slower."
    ),
)
