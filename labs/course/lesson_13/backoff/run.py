"""Lesson 13's backoff: the wait before each retry, plain and with three kinds of jitter."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.sim import JITTERS, backoff_schedule
from labs.text import gettext, gettext_noop, num

# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread("full_total_ms")


def wait_params(*, most_base_ms: float, most_cap_ms: float) -> tuple[Param, Param]:
    """The first wait and its cap, as both backoff labs offer them (each with its own bounds:
    the retry storm's stay small so a run stays within seconds)."""
    return (
        Param(
            "base_ms",
            gettext_noop("First wait"),
            "float",
            100.0,
            gettext_noop("The wait before the first retry; each later wait doubles it."),
            min=1,
            max=most_base_ms,
            group=gettext_noop("Backoff"),
            unit=gettext_noop("ms"),
        ),
        Param(
            "cap_ms",
            gettext_noop("Longest wait (cap)"),
            "float",
            3_200.0,
            gettext_noop("No wait grows beyond this."),
            min=1,
            max=most_cap_ms,
            group=gettext_noop("Backoff"),
            unit=gettext_noop("ms"),
        ),
    )


PARAMS = (
    Param(
        "attempts",
        gettext_noop("Retries"),
        "int",
        7,
        gettext_noop("How many retries one client makes after its first call fails."),
        min=1,
        max=20,
        group=gettext_noop("Backoff"),
    ),
    *wait_params(most_base_ms=60_000, most_cap_ms=600_000),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["cap_ms"] < params["base_ms"]:
        return {
            "cap_ms": gettext("The longest wait must be at least the first wait (%(ms)s ms).")
            % {"ms": num(params["base_ms"])}
        }
    return {}


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """One client's waits for every jitter kind, drawn in turn from one seeded generator."""
    rng = random.Random(seed)
    waits = {
        kind: backoff_schedule(params["attempts"], params["base_ms"], params["cap_ms"], kind, rng)
        for kind in JITTERS
    }
    plain = waits["none"]
    capped_at = next((i + 1 for i, w in enumerate(plain) if w >= params["cap_ms"]), None)
    progress.update(1, 1)
    summary: dict[str, Any] = {
        "retries": params["attempts"],
        "first_wait_ms": plain[0],
        "last_wait_ms": plain[-1],
        "capped_from_retry": capped_at,  # None: the waits never reach the cap
    }
    for kind in JITTERS:
        summary[f"{kind}_total_ms"] = round(sum(waits[kind]), 1)
    return {
        "summary": summary,
        "series": {
            "retry": list(range(1, params["attempts"] + 1)),
            **{f"{kind}_ms": [round(w, 1) for w in waits[kind]] for kind in JITTERS},
        },
        "tables": {},
    }


def waits_text(waits: list[float]) -> str:
    return ", ".join(num(round(w)) for w in waits) + " ms"


def headline(result: Mapping[str, Any]) -> list[str]:
    s, series, p = result["summary"], result["series"], result["params"]
    plain = series["none_ms"]
    cap = {"waits": waits_text(plain), "cap": num(p["cap_ms"]), "at": s["capped_from_retry"]}
    lines = [
        (
            gettext(
                "Without jitter the waits are %(waits)s: each one doubles until the cap of "
                "%(cap)s ms (reached at retry %(at)s)."
            )
            if s["capped_from_retry"]
            else gettext(
                "Without jitter the waits are %(waits)s: they double and never reach "
                "the cap of %(cap)s ms."
            )
        )
        % cap,
        gettext(
            "A client without jitter waits %(total)s ms over all %(n)s retries; every client "
            "that failed with it waits exactly as long."
        )
        % {"total": num(s["none_total_ms"]), "n": s["retries"]},
        gettext("Full jitter (seed %(seed)s): %(waits)s: anywhere from 0 up to the plain wait.")
        % {"seed": result["seed"], "waits": waits_text(series["full_ms"])},
        gettext("Equal jitter: %(waits)s: at least half the plain wait.")
        % {"waits": waits_text(series["equal_ms"])},
        gettext(
            "Decorrelated jitter: %(waits)s: from the first wait up to three times the wait "
            "before, capped."
        )
        % {"waits": waits_text(series["decorrelated_ms"])},
    ]
    return lines


FIGURES = (
    Figure("retries", gettext_noop("Retries"), "int"),
    Figure("first_wait_ms", gettext_noop("First wait"), "float", gettext_noop("ms")),
    Figure("last_wait_ms", gettext_noop("Last wait"), "float", gettext_noop("ms")),
    Figure(
        "capped_from_retry", gettext_noop("First retry that hits the cap"), "int", "", nullable=True
    ),
    Figure("none_total_ms", gettext_noop("Total wait, no jitter"), "float", gettext_noop("ms")),
    Figure("full_total_ms", gettext_noop("Total wait, full jitter"), "float", gettext_noop("ms")),
    Figure("equal_total_ms", gettext_noop("Total wait, equal jitter"), "float", gettext_noop("ms")),
    Figure(
        "decorrelated_total_ms",
        gettext_noop("Total wait, decorrelated jitter"),
        "float",
        gettext_noop("ms"),
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    uses_seed=USES_SEED,
    spread=SPREAD,
)
