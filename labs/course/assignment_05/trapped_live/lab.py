"""The trapped-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue import retry_snippets
from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.assignment_05.trapped_live import charts, run
from labs.course.assignment_05.trapped_service.lab import RECOVERS, TRAPPED_BECAUSE, trapped_extra
from labs.interface.live import LiveNumber, LiveView
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "recovered",
        gettext_noop("After the trigger ends, will the service recover?"),
        TRAPPED_BECAUSE,
        choices=RECOVERS,
        extra=trapped_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "model_oldest_age_s": gettext_noop("model: oldest request age (s)"),
    "model_retries": gettext_noop("model: retries"),
    "model_useful": gettext_noop("model: useful"),
    "model_wasted": gettext_noop("model: wasted"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="trapped-live",
    unit="assignment-05",
    title=gettext_noop("The trapped service, live: rescue it from the operator panel"),
    intro=gettext_noop(
        "The same service on a real Redis: callers that really time out and retry, a real "
        "queue and real workers. Watch it stay stuck after the spike, then switch the "
        "controls from the panel while it drowns and see it recover without losing a "
        "payment. Time runs four times faster than in the model (set below)."
    ),
    charts=charts.build,
    seeds_twin="trapped-service",
    in_production=retry_snippets.trapped,
    try_next=(
        TryNext(
            gettext_noop("Let no layer retry (1 attempt a call): does the live service recover?"),
            {"max_attempts": 1},
        ),
        TryNext(
            gettext_noop("Switch on only the retry budget: is that enough to free it?"),
            {"limit_retries": True},
        ),
    ),
    before_after=True,
    live=LiveView(
        (
            LiveNumber("second", gettext_noop("Simulated second")),
            LiveNumber("backlog", gettext_noop("Backlog"), gettext_noop("requests")),
            LiveNumber("oldest_age_s", gettext_noop("Oldest request has waited"), "s"),
            LiveNumber("useful", gettext_noop("Useful answers this second")),
            LiveNumber("wasted", gettext_noop("Wasted answers this second")),
            LiveNumber("retries", gettext_noop("Retries this second")),
            LiveNumber(
                "latency_p99_ms",
                gettext_noop("p99 wait of answered requests"),
                "ms",
                none_text=gettext_noop("nobody answered"),
            ),
            LiveNumber("payments_unknown", gettext_noop("Payments nobody owns")),
            LiveNumber("payments_lost", gettext_noop("Payments lost")),
        ),
        charts.live_chart,
        switches=run.switches_now,
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Time runs at the pace you set (a model second lasts a quarter of a real second by "
        "default) and the rates are lower than the model's, so the shared Redis and a two-core "
        "machine can carry a run. Workers work by sleeping for the service time, so a real "
        "request's processor, memory and database load are left out, and callers and workers "
        "are threads in one process. Your controls act within moments of your command, where a "
        "real change needs a deploy or a configuration push, so recovery here comes sooner "
        "than it would in production."
    ),
)
