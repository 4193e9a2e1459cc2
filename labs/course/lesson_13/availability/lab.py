"""The availability lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.availability import charts, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "longest_chain_down_h_per_year",
        gettext_noop("How many hours a year will the longest chain be down?"),
        gettext_noop(
            "Availabilities multiply along a chain: %(longest_chain)s links of "
            "%(link_pct)s%% give %(longest_chain_pct)s%%, which is "
            "%(longest_chain_down_h_per_year)s hours down in a year of 8,760."
        ),
        high=200,
        unit=gettext_noop("h"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "copies": gettext_noop("copies"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="availability",
    unit="lesson-13",
    title=gettext_noop("Availability: copies in parallel, a chain in series"),
    intro=gettext_noop(
        "Copies in different buildings (AZs) raise availability; every service a "
        "request needs lowers it. Compare both, and a chain made of copies."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Share nothing between the AZs (set it to 100): what do the copies buy now?"
            ),
            {"shared_pct": 100.0},
        ),
        TryNext(
            gettext_noop(
                "Add copies up to 6 while the dependency stays shared: does the total move?"
            ),
            {"copies": 6},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The formulas treat every part as failing independently, except the one shared part "
        "you set. Real copies share causes (the same faulty release, a bad configuration "
        "change, a region's outage), so the availability of many copies here is optimistic. "
        "Switching to a copy is instant and free here; a real system loses seconds or minutes "
        "when it fails over, which adds downtime."
    ),
)
