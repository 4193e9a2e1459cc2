"""The health-checks lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.health_checks import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "shallow_failed_pct",
        gettext_noop("With shallow health checks, what share of requests will fail?"),
        gettext_noop(
            "The database was down from %(db_down_from_s)s s to %(db_down_until_s)s s; "
            "shallow checks kept sending the sick instances %(shallow_sick_share_pct)s%% of "
            "the traffic and %(shallow_failed_pct)s%% failed; deep checks took every "
            "instance out for %(deep_all_out_s)s s and %(deep_failed_pct)s%% failed."
        ),
        unit="%",
        tolerance=0.15,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="health-checks",
    unit="lesson-13",
    title=gettext_noop("Health checks: shallow or deep?"),
    intro=gettext_noop(
        "Several instances share one database; one of them is sick and the database "
        "blips. Compare a check that asks only whether the process is up with one "
        "that also asks the database."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop(
                "Send to the instance with the fewest requests in progress: how much "
                "traffic does the sick one get?"
            ),
            {"balance": "least_outstanding"},
        ),
        TryNext(
            gettext_noop(
                "Trust an instance again after one passing check: how long is nobody "
                "in service now?"
            ),
            {"healthy_after": 1},
        ),
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Traffic splits between instances by a formula (equally, or by how fast each answers), "
        "and a check's answer is exact: it fails only because of the database or the sick "
        "instance, never because the check itself was slow or lost. The sick instance fails "
        "every request and the others fail none, except during the database's blip. Some load "
        "balancers retry a failed request on another instance, which this model does not do, "
        "so for them its failed share is pessimistic."
    ),
)
