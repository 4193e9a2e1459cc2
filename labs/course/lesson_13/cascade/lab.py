"""The cascade lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.cascade import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "usable_share_stall",
        gettext_noop(
            "While the dependency stalls, what share of requests will get a usable answer?"
        ),
        gettext_noop(
            "Holding every call through the stall needs %(threads_needed)s threads and the "
            "service has %(threads)s: at the peak %(peak_threads_busy)s were busy, "
            "%(peak_waiting_on_dependency)s of them waiting on the dependency, and each "
            "request took %(attempts_per_request)s attempts."
        ),
        percent=True,
        tolerance=0.25,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "new_requests": gettext_noop("new requests"),
    "ok": gettext_noop("full answers"),
    "fallback": gettext_noop("answers from the cache"),
    "fast_fails": gettext_noop("refused by the breaker"),
    "bare_usable": gettext_noop("usable answers with no tool"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="cascade",
    unit="lesson-13",
    title=gettext_noop("One stuck dependency stalls the whole service"),
    intro=gettext_noop(
        "Half of a service's pages call a grades service, and it gets stuck for 30 s. "
        "Its calls hold every thread, so the other pages wait too. Switch on the four "
        "tools one at a time and watch which one frees what."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop(
                "Add a 1 s timeout: do the pages that never call the dependency come back?"
            ),
            {"use_timeout": True},
        ),
        TryNext(
            gettext_noop(
                "Add a breaker and a fallback too: how many calls still reach the sick service?"
            ),
            {"use_timeout": True, "backoff": True, "breaker": True, "fallback": True},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The dependency takes the same time however many calls it is given, so once the stall "
        "ends the service recovers as soon as the work piled up is done. A real dependency "
        "under heavy load gets slower, which can keep a service stuck after the trigger is "
        "gone, so the recovery here is optimistic. A dependency that is down refuses calls "
        "instantly here, where a real refusal still takes a network round trip."
    ),
)
