"""The degradation lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_13.degradation import charts, production, run
from labs.text import gettext_noop


def _degradation_extra(summary: Values, params: Values) -> dict[str, float]:
    down_s = max(0, min(params["down_until_s"], params["duration_s"]) - params["down_from_s"])
    return {"down_s": down_s, "degraded_pct": round(100 * summary["degraded_share"], 1)}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "error_share",
        gettext_noop("What share of requests will get an error page?"),
        gettext_noop(
            "The database was down for %(down_s)s s of %(duration_s)s s: with no fallback "
            "%(errors_without_fallback)s requests would have failed; the cached page "
            "answered %(degraded_pct)s%% of requests, and %(errors)s failed."
        ),
        percent=True,
        extra=_degradation_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "degraded": gettext_noop("older page, marked"),
    "error_without_fallback": gettext_noop("error page without a fallback"),
    "page_age_s": gettext_noop("age of the page shown (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="degradation",
    unit="lesson-13",
    title=gettext_noop("Graceful degradation: an older page instead of an error"),
    intro=gettext_noop(
        "While the grades service is down, show the last saved results page, marked "
        "with its age. Compare what parents see with and without this fallback."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop(
                "Refuse pages older than 2 minutes: what do parents see during the outage?"
            ),
            {"limit_age": True, "max_stale_s": 120},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Every request in a second gets the same answer, the dependency is either fully up or "
        "fully down, and every page is in the cache, already a fixed age when the outage "
        "starts. A real cache holds only pages asked for recently, so some requests get an "
        "error even with a fallback; the share of useful answers here is optimistic. The load "
        "when the dependency comes back, and the cost of serving the cached pages, are left "
        "out."
    ),
)
