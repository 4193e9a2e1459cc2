"""The busy-minute lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_07.busy_minute import charts, run
from labs.text import gettext_noop


def _busy_minute_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"excess_per_s": max(0, params["arrive_per_s"] - params["capacity_per_s"])}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "peak_backlog",
        gettext_noop("How deep will the backlog get during the busy spell?"),
        gettext_noop(
            "For %(busy_s)s s, %(arrive_per_s)s jobs arrived each second and "
            "%(capacity_per_s)s were served: %(excess_per_s)s more a second than the "
            "workers could take, so %(peak_backlog)s were waiting at the peak."
        ),
        high=60000,
        step=500,
        extra=_busy_minute_extra,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="busy-minute",
    unit="lesson-07",
    title=gettext_noop("A busy minute: the backlog builds, then clears"),
    intro=gettext_noop(
        "Jobs arrive faster than the workers finish them for a while. Watch the queue "
        "grow during the busy spell and empty after it."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Give the workers 3,000 jobs a second: does any backlog build?"),
            {"capacity_per_s": 3000},
        ),
        TryNext(
            gettext_noop(
                "Let 2,000 a second arrive after the spell: how long until the backlog clears?"
            ),
            {"arrive_after_per_s": 2000, "after_s": 90},
        ),
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Jobs arrive at one steady rate through the busy spell and the pool finishes exactly "
        "its capacity every second, so the backlog grows and shrinks in straight lines. With "
        "arrivals just under the capacity this model shows no backlog at all, while real "
        "arrivals come in clumps and would still queue. Jobs that fail and come back, and "
        "workers that slow down under load, are left out, so a real backlog clears later than "
        "this one."
    ),
)
