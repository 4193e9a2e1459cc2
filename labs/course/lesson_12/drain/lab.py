"""The drain lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_12.drain import charts, production, run
from labs.text import gettext_noop


def _busiest_second(summary: Values, params: Values) -> dict[str, float]:
    return {"busiest_second": max(params["arrivals"], default=0)}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "peak_backlog",
        gettext_noop("How deep will the backlog get?"),
        gettext_noop(
            "%(total_arrived)s jobs arrived in %(seconds)s s, up to %(busiest_second)s in "
            "one second; with at most %(most_workers)s workers doing %(per_worker)s a "
            "second each, the backlog peaked at %(peak_backlog)s."
        ),
        high=3000,
        step=50,
        extra=_busiest_second,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="drain",
    unit="lesson-12",
    title=gettext_noop("Drain a burst: fixed workers or workers scaled on the backlog"),
    intro=gettext_noop(
        "Jobs arrive second by second; each worker finishes a fixed number a second. "
        "Choose how many workers run and watch the backlog build and clear."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Switch to a fixed pool of 3 workers: does the backlog still clear?"),
            {"rule": "fixed", "fixed_workers": 3},
        ),
        TryNext(
            gettext_noop("Allow at most 4 workers: how much later is the queue empty?"),
            {"max_workers": 4},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "A new worker is ready in the very second the scaler asks for it, and the scaler reads "
        "a backlog only one second old. Real autoscalers read metrics that are often a minute "
        "old, and new workers can take minutes to start, so the backlog here peaks lower and "
        "clears sooner than a real one would. Every worker finishes exactly the same number of "
        "jobs each second, and a worker no longer needed stops at once; a real worker is also "
        "paid for while it starts, so the worker-seconds here are a little low."
    ),
)
