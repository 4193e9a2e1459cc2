"""The drain-compare lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.drain_compare import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "rules_left_behind",
        gettext_noop("How many of the rules will leave jobs waiting at the end?"),
        gettext_noop(
            "Of %(rules)s rules, %(rules_left_behind)s left jobs waiting after %(seconds)s "
            "s; the best kept the backlog to %(lowest_peak_backlog)s, and the cheapest that "
            "emptied the queue used %(cheapest_worker_seconds)s worker-seconds."
        ),
        high=10,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "cleared_at_s": gettext_noop("cleared at (s)"),
    "left_at_end": gettext_noop("left at the end"),
    "most_workers": gettext_noop("most workers"),
    "rule": gettext_noop("rule"),
    "worker_seconds": gettext_noop("worker-seconds"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="drain-compare",
    unit="lesson-12",
    title=gettext_noop("Compare scaling rules side by side"),
    intro=gettext_noop(
        "The same burst through several rules at once: fixed pools and pools scaled "
        "on the backlog. Which keeps the queue short, and which costs fewest workers?"
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Add a fixed pool of 10: does it cost more than the backlog rules?"),
            {"fixed_pools": [3, 8, 10]},
        ),
        TryNext(
            gettext_noop(
                "Keep at least 3 workers in every backlog rule: which rule is cheapest now?"
            ),
            {"min_workers": 3},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Every rule meets the same arrivals, a new worker is ready in the very second the "
        "scaler asks for it, and each worker finishes exactly the same number of jobs every "
        "second. Real autoscalers read metrics that are often a minute old and new workers can "
        "take minutes to start, so the scaled rules here look better than they would in "
        "production; the fixed pools are not affected. A real worker is also paid for while it "
        "starts, so the scaled rules' worker-seconds here are a little low."
    ),
)
