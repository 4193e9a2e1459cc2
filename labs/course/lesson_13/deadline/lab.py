"""The deadline lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, yes_no
from labs.course.lesson_13.deadline import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "answered",
        gettext_noop("Will the caller get an answer within its deadline?"),
        gettext_noop(
            "The callee needs %(service_s)s s; %(tries)s tries fitted in the "
            "%(deadline_s)s s deadline, the caller waited %(caller_waited_s)s s, and "
            "%(wasted_s)s s of work was done for nobody."
        ),
        choices=yes_no(gettext_noop("Yes, in time"), gettext_noop("No, it gives up")),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "caller_end_s": gettext_noop("caller gave up at (s)"),
    "service_end_s": gettext_noop("service gave up at (s)"),
    "start_s": gettext_noop("started at (s)"),
    "try": gettext_noop("try"),
    "wasted_s": gettext_noop("wasted time (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="deadline",
    unit="lesson-13",
    title=gettext_noop("Timeouts inside one deadline, and work done for nobody"),
    intro=gettext_noop(
        "Each try waits to connect and to read, and all the tries share one total "
        "deadline. Watch the last try get only what is left, and the service go on "
        "working after its caller has given up."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Give the service a timeout of 1.5 s: how much wasted work is left?"),
            {"callee_timeout_s": 1.5},
        ),
        TryNext(
            gettext_noop("Make the service unreachable: how many tries fit in the deadline now?"),
            {"connect_fails": True},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Each try ends exactly at its timeout or at the deadline, the waits between tries have "
        "no jitter, and connecting to a service that is up takes no time. Real calls also "
        "spend time on the network and on setting up a connection, which eats into the "
        "deadline, so the number of tries that fit here is optimistic. The wasted work counts "
        "only the service's own time, not the further calls it may make on a request nobody is "
        "waiting for."
    ),
)
