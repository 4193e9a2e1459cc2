"""Lesson 13's backoff: the wait before each retry, plain and with three kinds of jitter."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param
from labs.runs.progress import Progress
from labs.sim import JITTERS, backoff_schedule
from labs.text import num

# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True

PARAMS = (
    Param(
        "attempts",
        "Retries",
        "int",
        7,
        "How many retries one client makes after its first call fails.",
        min=1,
        max=20,
        group="Backoff",
    ),
    Param(
        "base_ms",
        "First wait",
        "float",
        100.0,
        "The wait before the first retry; each later wait doubles it.",
        min=1,
        max=60_000,
        group="Backoff",
        unit="ms",
    ),
    Param(
        "cap_ms",
        "Longest wait (cap)",
        "float",
        3_200.0,
        "No wait grows beyond this.",
        min=1,
        max=600_000,
        group="Backoff",
        unit="ms",
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["cap_ms"] < params["base_ms"]:
        return {
            "cap_ms": f"The longest wait must be at least the first wait "
            f"({num(params['base_ms'])} ms)."
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
    lines = [
        f"Without jitter the waits are {waits_text(plain)}: each one doubles "
        + (
            f"until the cap of {num(p['cap_ms'])} ms (reached at retry {s['capped_from_retry']})."
            if s["capped_from_retry"]
            else f"and never reach the cap of {num(p['cap_ms'])} ms."
        ),
        f"A client without jitter waits {num(s['none_total_ms'])} ms over all "
        f"{s['retries']} retries; every client that failed with it waits exactly as long.",
        f"Full jitter (seed {result['seed']}): {waits_text(series['full_ms'])}: "
        "anywhere from 0 up to the plain wait.",
        f"Equal jitter: {waits_text(series['equal_ms'])}: at least half the plain wait.",
        f"Decorrelated jitter: {waits_text(series['decorrelated_ms'])}: from the first wait "
        "up to three times the wait before, capped.",
    ]
    return lines


FIGURES = (
    Figure("retries", "Retries", "int"),
    Figure("first_wait_ms", "First wait", "float", "ms"),
    Figure("last_wait_ms", "Last wait", "float", "ms"),
    Figure("capped_from_retry", "First retry that hits the cap", "int", "", nullable=True),
    Figure("none_total_ms", "Total wait, no jitter", "float", "ms"),
    Figure("full_total_ms", "Total wait, full jitter", "float", "ms"),
    Figure("equal_total_ms", "Total wait, equal jitter", "float", "ms"),
    Figure("decorrelated_total_ms", "Total wait, decorrelated jitter", "float", "ms"),
)
