"""The layered-retries lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.layered_retries import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "every_layer_load_per_s",
        gettext_noop(
            "With every layer retrying, how many calls a second will reach the failing service?"
        ),
        gettext_noop(
            "%(attempts)s attempts at each of %(layers)s layers multiply to "
            "%(every_layer_calls)s calls per click: %(clicks_per_s)s clicks a second became "
            "%(every_layer_load_per_s)s calls; with one layer retrying, "
            "%(one_layer_load_per_s)s."
        ),
        high=10000,
        step=100,
        unit=gettext_noop("calls/s"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "failure_pct": gettext_noop("calls failing (%)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="layered-retries",
    unit="lesson-13",
    title=gettext_noop("Retries at every layer: how many calls does one click make?"),
    intro=gettext_noop(
        "A click passes through several layers before it reaches the service, and each "
        "layer may retry. Count the calls that reach a sick service when every layer "
        "retries, when only one does, and when retries come out of a budget."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Add a fourth layer: how many calls reach the service now?"),
            {"layers": 4},
        ),
        TryNext(
            gettext_noop("Let only 10 percent of calls fail: does the choice still matter?"),
            {"failure_pct": 10.0},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The figures are averages for a service that fails each call independently, with the "
        "same chance however many calls it gets. A real sick service fails more as the retries "
        "add to its load, so with it the calls per click would be higher and the share "
        "answered lower than here. It counts calls only: how long a click waits and what each "
        "layer's timeouts do are left out."
    ),
)
