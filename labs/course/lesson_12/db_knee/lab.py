"""The db-knee lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.db_knee import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "scaled_left_at_end",
        gettext_noop("Adding workers with no cap, how many jobs will wait at the end?"),
        gettext_noop(
            "Past %(knee_concurrency)s queries at once the database slows down: with up to "
            "%(scaled_most_workers)s workers it ended answering %(scaled_db_per_s_at_end)s "
            "a second at %(scaled_latency_ms_at_end)s ms each and left "
            "%(scaled_left_at_end)s; capped at %(cap)s it left %(capped_left_at_end)s."
        ),
        high=30000,
        step=500,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "capped_latency_ms": gettext_noop("capped pool: latency (ms)"),
    "scaled_latency_ms": gettext_noop("scaled on backlog: latency (ms)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="db-knee",
    unit="lesson-12",
    title=gettext_noop("More workers than the database can take: the knee"),
    intro=gettext_noop(
        "Every job is one query. The scaler adds workers while the queue grows, but "
        "past its knee the database answers fewer queries the more it is sent. Compare "
        "the scaler alone with the same scaler capped at the knee."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Cap the workers at 30 instead: past the knee, does the queue still clear?"
            ),
            {"cap": 30},
        ),
        TryNext(
            gettext_noop("Let the scaler start 150 workers: how many find no connection?"),
            {"max_workers": 150},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The database's curve is a simple formula, the same every second: straight up to the "
        "knee, then a smooth fall. A real database's knee moves with the mix of queries, its "
        "cache and its disks, and a bad second leaves locks and waiting queries behind, which "
        "this model forgets by the next second. Workers refused a connection simply do nothing "
        "here; real ones retry their connections and add load, so a real collapse past the "
        "knee can be worse than this one."
    ),
)
