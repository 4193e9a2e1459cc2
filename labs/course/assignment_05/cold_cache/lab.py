"""The cold-cache lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.assignment_05.cold_cache import charts, production, run
from labs.text import gettext_noop


def _cold_cache_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"hit_pct": round(100 * summary["hit_share"], 1)}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "origin_peak_rps",
        gettext_noop("How many requests a second will reach the origin at its busiest?"),
        gettext_noop(
            "%(offered_rps)s reads a second met a cold cache of %(keys)s keys; the "
            "origin's busiest second took %(origin_peak_rps)s (it can serve "
            "%(origin_capacity_rps)s), and %(hit_pct)s%% of reads were hits."
        ),
        high=2000,
        step=10,
        unit=gettext_noop("requests/s"),
        extra=_cold_cache_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "keys_filled": gettext_noop("keys filled"),
    "origin_delay_ms": gettext_noop("origin delay (ms)"),
    "timed_out": gettext_noop("timed out"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="cold-cache",
    unit="assignment-05",
    title=gettext_noop("Follow-up 1: the cache restarts cold"),
    intro=gettext_noop(
        "1,000 reads a second reach an empty cache in front of an origin that does "
        "100 a second. Shared fetches, a budget, stale copies and fast 429s keep the "
        "origin safe: count where every read went."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop(
                "Switch the origin's budget off: how many fetches reach it in one second?"
            ),
            {"origin_budget": False},
        ),
        TryNext(
            gettext_noop("Switch off the budget and shared fetches: how many reads give up?"),
            {"origin_budget": False, "coalescing": "none"},
        ),
        TryNext(
            gettext_noop(
                "One hot key, nothing to protect the origin, and a fetch that takes 500 ms: "
                "how many fetches reach the origin in one second when the key expires?"
            ),
            {
                "keys": 1,
                "coalescing": "none",
                "origin_budget": False,
                "serve_stale": False,
                "origin_ms": 500.0,
            },
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "The origin finishes fetches one after another at a fixed pace, plus a fixed network "
        "delay, and its pace never changes however many fetches wait. A real origin asked for "
        "too much gets slower and starts failing, so the stampede here hurts less than it "
        "would in production. Global coalescing and the origin budget are perfect here: every "
        "instance knows at once about a fetch in flight and the budget left, with no time "
        "spent keeping them in step."
    ),
)
