"""The drain-math lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.assignment_05.drain_math import charts, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "drain_s",
        gettext_noop("How many seconds will the backlog take to drain?"),
        gettext_noop(
            "The workers serve %(capacity_per_s)s a second while %(arrivals_per_s)s "
            "arrive, %(net_capacity_per_s)s a second net: %(backlog)s waiting take "
            "%(drain_s)s s."
        ),
        high=120,
        unit=gettext_noop("s"),
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="drain-math",
    unit="assignment-05",
    title=gettext_noop("How long until the queue is empty?"),
    intro=gettext_noop(
        "Jobs are waiting, more keep arriving and the workers finish a fixed number a "
        "second. Divide the backlog by what the workers gain each second, and see "
        "what happens when they gain nothing."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Let 60 jobs arrive each second: does the queue ever empty?"),
            {"arrivals_per_s": 60.0},
        ),
        TryNext(
            gettext_noop("Let 45 arrive each second: how much longer does the same backlog take?"),
            {"arrivals_per_s": 45.0},
        ),
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Backlog divided by net capacity assumes the workers finish the same number of jobs "
        "every second and the arrivals never change. Jobs that fail and are retried, workers "
        "that slow down when a dependency does, and the time to start extra workers are left "
        "out. So the drain time here is the ideal, and a real queue drains more slowly."
    ),
)
