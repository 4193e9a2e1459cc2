"""Lesson 13's graceful degradation: a marked, older page instead of an error page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import outage_errors, table
from labs.sim import DegradationRun, play_degradation
from labs.text import gettext, gettext_noop, num

PARAMS = (
    Param(
        "rate_per_s",
        gettext_noop("Requests each second"),
        "int",
        100,
        gettext_noop("How many parents open the results page every second."),
        min=1,
        max=100_000,
        group=gettext_noop("Traffic"),
        unit=gettext_noop("req/s"),
    ),
    Param(
        "duration_s",
        gettext_noop("Seconds to watch"),
        "int",
        60,
        gettext_noop("How long the lab runs."),
        min=1,
        max=3_600,
        group=gettext_noop("Traffic"),
        unit=gettext_noop("s"),
    ),
    Param(
        "down_from_s",
        gettext_noop("Grades service down from"),
        "int",
        10,
        gettext_noop("The second the service behind the page starts failing."),
        min=0,
        max=3_600,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "down_until_s",
        gettext_noop("Grades service back at"),
        "int",
        40,
        gettext_noop("The first second it answers again."),
        min=0,
        max=3_600,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "cache_age_s",
        gettext_noop("Age of the cached page when the outage starts"),
        "int",
        300,
        gettext_noop(
            "The fallback shows the last page it saved, marked with its age (300 s = 5 minutes)."
        ),
        min=0,
        max=86_400,
        group=gettext_noop("Fallback"),
        unit=gettext_noop("s"),
    ),
    Param(
        "limit_age",
        gettext_noop("Refuse pages that are too old"),
        "bool",
        False,
        gettext_noop("Tick to show an error instead of a page older than the limit below."),
        group=gettext_noop("Fallback"),
    ),
    Param(
        "max_stale_s",
        gettext_noop("Oldest page still shown"),
        "int",
        600,
        gettext_noop("Only used when the box above is ticked."),
        min=0,
        max=86_400,
        group=gettext_noop("Fallback"),
        unit=gettext_noop("s"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = outage_errors(params)
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Serve the same outage with and without a fallback; no randomness."""
    common = {
        "duration_s": params["duration_s"],
        "rate_per_s": params["rate_per_s"],
        "down_from_s": params["down_from_s"],
        "down_until_s": params["down_until_s"],
        "cache_age_s": params["cache_age_s"],
        "max_stale_s": params["max_stale_s"] if params["limit_age"] else None,
    }
    with_fallback = play_degradation(fallback=True, **common)
    without = play_degradation(fallback=False, **common)
    ages = [s.page_age_s for s in with_fallback.seconds if s.degraded and s.page_age_s is not None]
    progress.update(1, 1)
    requests = params["duration_s"] * params["rate_per_s"]
    return {
        "summary": {
            "requests": requests,
            "full_share": round(with_fallback.full_share, 4),
            "degraded_share": round(with_fallback.degraded_share, 4),
            "error_share": round(with_fallback.error_share, 4),
            "error_share_without_fallback": round(without.error_share, 4),
            "errors": _count(with_fallback, "error"),
            "errors_without_fallback": _count(without, "error"),
            "youngest_page_shown_s": min(ages) if ages else None,
            "oldest_page_shown_s": max(ages) if ages else None,
        },
        "series": {
            "second": [s.second for s in with_fallback.seconds],
            "full": [s.full for s in with_fallback.seconds],
            "degraded": [s.degraded for s in with_fallback.seconds],
            "error": [s.error for s in with_fallback.seconds],
            "page_age_s": [s.page_age_s for s in with_fallback.seconds],
            "error_without_fallback": [s.error for s in without.seconds],
        },
        "tables": {
            "shares": table(
                gettext_noop("What the parents saw"),
                [
                    "",
                    gettext_noop("full page"),
                    gettext_noop("older page, marked"),
                    gettext_noop("error page"),
                ],
                [
                    [gettext_noop("with a fallback"), *_shares(with_fallback)],
                    [gettext_noop("without a fallback"), *_shares(without)],
                ],
            ),
        },
    }


def _count(run: DegradationRun, kind: str) -> int:
    return sum(getattr(s, kind) for s in run.seconds)


def _shares(run: DegradationRun) -> list[str]:
    return [f"{share:.0%}" for share in (run.full_share, run.degraded_share, run.error_share)]


def _age(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} {gettext('min')}" + (f" {rest} s" if rest else "")


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        gettext(
            "With a fallback: %(full)s full pages, %(older)s older pages marked with their age, "
            "%(errors)s errors (%(n)s error pages)."
        )
        % {
            "full": f"{s['full_share']:.0%}",
            "older": f"{s['degraded_share']:.0%}",
            "errors": f"{s['error_share']:.0%}",
            "n": num(s["errors"]),
        },
        gettext("Without a fallback: %(errors)s errors (%(n)s error pages).")
        % {
            "errors": f"{s['error_share_without_fallback']:.0%}",
            "n": num(s["errors_without_fallback"]),
        },
    ]
    if s["oldest_page_shown_s"] is not None:
        lines.append(
            gettext("The page shown was %(young)s old at first and %(old)s old at most.")
            % {"young": _age(s["youngest_page_shown_s"]), "old": _age(s["oldest_page_shown_s"])}
        )
    if s["errors"]:
        lines.append(
            gettext("Some parents still saw errors: the cached page grew older than the limit.")
        )
    return lines


FIGURES = (
    Figure("requests", gettext_noop("Requests"), "int"),
    Figure("full_share", gettext_noop("Share of full answers"), "float"),
    Figure("degraded_share", gettext_noop("Share of older, marked answers"), "float"),
    Figure("error_share", gettext_noop("Share of errors"), "float"),
    Figure(
        "error_share_without_fallback", gettext_noop("Share of errors without a fallback"), "float"
    ),
    Figure("errors", gettext_noop("Errors"), "int"),
    Figure("errors_without_fallback", gettext_noop("Errors without a fallback"), "int"),
    Figure(
        "youngest_page_shown_s",
        gettext_noop("Age of the youngest older page shown"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "oldest_page_shown_s",
        gettext_noop("Age of the oldest page shown"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
