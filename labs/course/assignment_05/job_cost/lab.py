"""The job-cost lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.assignment_05.job_cost import charts, run
from labs.text import gettext_noop


def _job_cost_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"expensive_pct": round(100 * params["incident_expensive_share"], 1)}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "actual_drain_s",
        gettext_noop("After the incident, how many seconds will the backlog take to drain?"),
        gettext_noop(
            "Counting jobs promised %(count_estimate_s)s s, but %(expensive_pct)s%% of the "
            "incident's jobs cost %(cost_ratio)s times as much: weighing the work promised "
            "%(work_estimate_s)s s, and it took %(actual_drain_s)s s."
        ),
        high=1000,
        step=10,
        unit=gettext_noop("s"),
        extra=_job_cost_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "units_done": gettext_noop("work units done"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="job-cost",
    unit="assignment-05",
    title=gettext_noop("Follow-up 2: when some jobs cost 100 times more"),
    intro=gettext_noop(
        "For 30 seconds many more jobs are expensive. Estimate the drain by counting "
        "jobs, then by counting work units, and find the oldest expensive job."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Add two workers: how much sooner is the queue empty, by each count?"),
            {"workers": 6},
        ),
        TryNext(
            gettext_noop(
                "Let an expensive job cost 10 units, not 100: does counting jobs still mislead?"
            ),
            {"cost_ratio": 10.0},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Jobs arrive at random, but each is either cheap or expensive, with nothing in "
        "between, and a worker does its work units at a steady pace. The incident changes only "
        "the mix of jobs, never the workers' speed, and no job fails or is retried. A real "
        "backlog also holds retries and jobs slowed by their dependencies, so even the "
        "estimate from work units is the best case here."
    ),
)
