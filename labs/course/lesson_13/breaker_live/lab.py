"""The breaker-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_13.breaker_live import charts, production, run
from labs.interface.live import QUEUE_NUMBERS, LiveNumber, LiveView
from labs.text import gettext, gettext_noop, ngettext, num


def openings_words(summary: Values, params: Values) -> str:
    """How the breaker opened in this run, read from its own state changes.

    The first opening comes after `fail_max` failures in a row; once it has opened, one
    failed trial while half-open opens it again; and pybreaker lets every worker that finds
    it half-open make its call, so a half-open spell can send several calls, not one.
    """
    opened = summary["opened"]
    if "opened_after_trial" not in summary:  # a run saved before these were counted
        return ngettext("The breaker opened once.", "The breaker opened %(n)s times.", opened) % {
            "n": num(opened)
        }
    first, again = summary["opened_after_failures"], summary["opened_after_trial"]
    if not opened:
        return gettext(
            "The breaker never opened: fewer than %(fail_max)s calls failed in a row."
        ) % {"fail_max": num(params["fail_max"])}
    words = [
        ngettext(
            "The breaker opened once, after %(fail_max)s failures in a row.",
            "The breaker opened %(n)s times, each after %(fail_max)s failures in a row.",
            first,
        )
        % {"n": num(first), "fail_max": num(params["fail_max"])}
    ]
    if again:
        words.append(
            ngettext(
                "It opened once more on a single failed trial while half-open.",
                "It opened %(n)s more times, each on a single failed trial while half-open.",
                again,
            )
            % {"n": num(again)}
        )
    trials = summary["half_open_calls"]
    if trials:
        words.append(
            ngettext(
                "While half-open it let %(n)s call through to the service: pybreaker lets "
                "every worker that finds it half-open make its call, not one trial alone.",
                "While half-open it let %(n)s calls through to the service: pybreaker lets "
                "every worker that finds it half-open make its call, not one trial alone.",
                trials,
            )
            % {"n": num(trials)}
        )
    return " ".join(words)


def _breaker_live_extra(summary: Values, params: Values) -> dict[str, object]:
    return {"down_s": params["down_for_s"], "openings": openings_words(summary, params)}


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "failed_fast",
        gettext_noop("How many calls will the breaker turn away without trying the service?"),
        gettext_noop(
            "The service was down for %(down_s)s s. %(openings)s So %(failed_fast)s calls "
            "failed fast and only %(reached_sick_service)s reached the sick service."
        ),
        high=300,
        step=5,
        extra=_breaker_live_extra,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "breaker_level": gettext_noop("breaker state (level)"),
    "breaker_state": gettext_noop("breaker state"),
    "service_down": gettext_noop("service down"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="breaker-live",
    unit="lesson-13",
    title=gettext_noop("On a real queue: one circuit breaker shared by all workers"),
    intro=gettext_noop(
        "Every worker keeps the breaker's state in Redis, so when calls to the payments "
        "service keep failing it opens for all of them at once. Watch its real state "
        "change through an outage."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Open after 2 failures: how many calls reach the failing service?"),
            {"fail_max": 2},
        ),
        TryNext(
            gettext_noop(
                "Stay open for 2 s: how long after the service is back do payments still wait?"
            ),
            {"reset_timeout_s": 2.0},
        ),
    ),
    live=LiveView(
        (LiveNumber("breaker_state", gettext_noop("Breaker")), *QUEUE_NUMBERS),
        charts.live_chart,
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Payments arrive at a steady rate, and the stand-in service is fully down for a window "
        "and fully up outside it. A call to it while it is down fails as quickly as a good one "
        "answers, rather than hanging until a timeout, so the breaker here opens sooner than a "
        "real one would. The breaker's shared state is kept in the same Redis as the queue, "
        "and this lab leaves out what the workers should do when that store is slow or out of "
        "reach."
    ),
)
