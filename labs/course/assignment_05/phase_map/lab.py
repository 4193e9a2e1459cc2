"""The phase-map lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.assignment_05.phase_map import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "trapped_runs",
        gettext_noop("Of the cells on the map, how many will end trapped?"),
        gettext_noop(
            "%(trapped_runs)s of %(runs)s spikes left the service trapped: it serves "
            "%(capacity_rps)s requests a second, and a spike that piles up more than about "
            "%(timeout_backlog)s requests (a timeout's worth) past that is not worked off."
        ),
        high=100,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "run": gettext_noop("run"),
    "amplification": gettext_noop("calls per request"),
    "base_rps": gettext_noop("usual arrivals (per second)"),
    "spike_rps": gettext_noop("spike arrivals (per second)"),
    "duration_s": gettext_noop("spike length (s)"),
    "excess_requests": gettext_noop("requests beyond capacity"),
    "final_backlog": gettext_noop("backlog at the end"),
    "recovered": gettext_noop("recovered"),
    "recovered_at_s": gettext_noop("recovered at (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="phase-map",
    unit="assignment-05",
    title=gettext_noop("Phase map: which spikes trap the service?"),
    intro=gettext_noop(
        "One run for every spike size and duration in a grid, with no controls. "
        "Green cells recovered by themselves, red ones stayed trapped: the border is "
        "the service's hidden capacity."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Let no layer retry (1 attempt per call): how many spikes still trap it?"),
            {"max_attempts": 1},
        ),
        TryNext(
            gettext_noop("Give callers a 2 s timeout: how far does the border move?"),
            {"client_timeout_ms": 2000.0},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Each cell is one run of the trapped service's model with one seed and every recovery "
        "control off, over a shorter time than the main lab; a cell near the border can come "
        "out the other way with another seed. The spike is a clean step: the rate jumps at "
        "once, stays flat and drops at once, while real spikes ramp up and down. It keeps what "
        "that model leaves out: no autoscaling, no operator, and a request's time that does "
        "not grow with the load."
    ),
)
