"""The burst-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_12.burst_live import charts, production, run
from labs.interface.live import LiveNumber, LiveView
from labs.text import gettext_noop


def charts_beside_model(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The burst's charts, beside the lesson's model of the same input."""
    return charts.build(result, run.simulated(result["params"]))


def live_chart_beside_model(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]):
    return charts.live_chart(samples, run.simulated(params))


def _burst_extra(summary: Values, params: Values) -> dict[str, float]:
    return {
        "busiest_second": max(params["arrivals"], default=0),
        "fixed_capacity": params["fixed_workers"] * params["per_worker"],
    }


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "peak_backlog_fixed",
        gettext_noop("With the fixed pool on the real queue, how deep will the backlog get?"),
        gettext_noop(
            "%(fixed_workers)s workers take %(fixed_capacity)s messages each lesson second (one "
            "second of the lesson, played faster here) against bursts of up to "
            "%(busiest_second)s: the real queue peaked at "
            "%(peak_backlog_fixed)s, the model at %(sim_peak_backlog_fixed)s."
        ),
        high=3000,
        step=50,
        extra=_burst_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "in_flight_fixed": gettext_noop("fixed pool: in flight"),
    "in_flight_scaled": gettext_noop("scaled on backlog: in flight"),
    "visible_fixed": gettext_noop("fixed pool: waiting"),
    "visible_scaled": gettext_noop("scaled on backlog: waiting"),
    "oldest_age_s_fixed": gettext_noop("fixed pool: oldest message age (s)"),
    "oldest_age_s_scaled": gettext_noop("scaled on backlog: oldest message age (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="burst-live",
    unit="lesson-12",
    title=gettext_noop(
        "On real queues: the burst, fixed workers against workers scaled on backlog"
    ),
    intro=gettext_noop(
        "The lesson's burst played into two real Redis queues, faster than in the lesson. "
        "One pool is fixed; a controller resizes the other from the real queue's depth. "
        "Watch both backlogs and the oldest message's age next to the simulation."
    ),
    charts=charts_beside_model,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Fix the pool at 8 workers: does it keep up with the scaled pool?"),
            {"fixed_workers": 8},
        ),
        TryNext(
            gettext_noop("Cap the scaled pool at 4 workers: how old does its oldest message get?"),
            {"max_workers": 4},
        ),
    ),
    live=LiveView(
        (
            LiveNumber("second", gettext_noop("Lesson second")),
            LiveNumber("backlog_fixed", gettext_noop("Backlog, fixed pool"), "jobs"),
            LiveNumber("backlog_scaled", gettext_noop("Backlog, scaled pool"), "jobs"),
            LiveNumber("workers_fixed", gettext_noop("Workers, fixed pool")),
            LiveNumber("workers_scaled", gettext_noop("Workers, scaled pool")),
            LiveNumber(
                "oldest_age_lesson_s_fixed",
                gettext_noop("Oldest message, fixed"),
                "lesson s",
                gettext_noop("empty"),
            ),
            LiveNumber(
                "oldest_age_lesson_s_scaled",
                gettext_noop("Oldest message, scaled"),
                "lesson s",
                gettext_noop("empty"),
            ),
            LiveNumber("done_fixed", gettext_noop("Done, fixed pool"), "jobs"),
            LiveNumber("done_scaled", gettext_noop("Done, scaled pool"), "jobs"),
        ),
        live_chart_beside_model,
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "A lesson second lasts the real time you set (0.2 s unless you change it), each "
        "second's jobs go on the queue together at its start, and a new worker is a thread "
        "that starts within milliseconds. The workers do no real work: each only paces itself "
        "to its rate, so the only slowness is Redis and this machine's busy processor. Real "
        "autoscaling starts machines or containers that take far longer, so the scaled pool "
        "here catches up sooner than a real one would."
    ),
)
