"""Lesson 13's retry storm: many clients fail together; jitter spreads their retries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param
from labs.runners.common import table
from labs.runs.progress import Progress
from labs.sim import JITTERS, RETRY_STORM_SEED, retry_histogram
from labs.text import listed, num

# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = RETRY_STORM_SEED  # the lesson's 21 / 81 / 292 come out nearly exact

PARAMS = (
    Param(
        "clients",
        "Clients that fail together",
        "int",
        500,
        "Every client's call fails at the same moment; the chart shows their retries.",
        min=1,
        max=3_000,
        group="The storm on the chart",
    ),
    Param(
        "jitter",
        "Jitter on the chart",
        "choice",
        "full",
        "The kind of jitter drawn against no jitter at all.",
        choices=(
            ("full", "Full: 0 up to the wait"),
            ("equal", "Equal: half the wait plus a random half"),
            ("decorrelated", "Decorrelated: up to 3 × the wait before"),
        ),
        group="The storm on the chart",
    ),
    Param(
        "compare_clients",
        "Client counts to compare",
        "int_list",
        [100, 500, 2_000],
        "Comma-separated: the busiest slot for each count and every kind of jitter.",
        min=1,
        max=3_000,
        max_items=3,
        group="Compare",
    ),
    Param(
        "attempts",
        "Retries per client",
        "int",
        4,
        "How many times each client tries again.",
        min=1,
        max=6,
        group="Backoff",
    ),
    Param(
        "base_ms",
        "First wait",
        "float",
        100.0,
        "The wait before the first retry; each later wait doubles it.",
        min=1,
        max=10_000,
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
        max=10_000,
        group="Backoff",
        unit="ms",
    ),
    Param(
        "slot_ms",
        "Slot width",
        "int",
        10,
        "Retries are counted in slots of this many milliseconds.",
        min=1,
        max=1_000,
        group="Backoff",
        unit="ms",
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    if params["cap_ms"] < params["base_ms"]:
        errors["cap_ms"] = (
            f"The longest wait must be at least the first wait ({num(params['base_ms'])} ms)."
        )
    counts = params["compare_clients"]
    if len(set(counts)) != len(counts):
        errors["compare_clients"] = "Give each client count only once."
    return errors


def busiest(histogram: Mapping[float, int]) -> tuple[float | None, int]:
    """(start of the busiest slot in ms, retries in it); the earliest wins a tie."""
    if not histogram:
        return None, 0
    start = max(histogram, key=lambda slot: (histogram[slot], -slot))
    return start, histogram[start]


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Every storm is drawn under the run's seed, like the lesson's `retry_storm`."""
    backoff = {
        "attempts": params["attempts"],
        "seed": seed,
        "slot_ms": params["slot_ms"],
        "base_ms": params["base_ms"],
        "cap_ms": params["cap_ms"],
    }
    clients, chosen = params["clients"], params["jitter"]
    steps = len(JITTERS) * (1 + len(params["compare_clients"]))
    histograms = {}
    for kind in JITTERS:
        histograms[kind] = retry_histogram(clients, jitter=kind, **backoff)
        progress.update(len(histograms), steps)
    compare = []
    for n in params["compare_clients"]:
        row = {kind: busiest(retry_histogram(n, jitter=kind, **backoff))[1] for kind in JITTERS}
        compare.append((n, row))
        progress.update(len(JITTERS) * (1 + len(compare)), steps)
    at_ms, most = busiest(histograms[chosen])
    plain_at_ms, plain_most = busiest(histograms["none"])
    # Only slots with a retry in them: empty ones would make a long, mostly-zero table.
    slots = sorted(set(histograms["none"]) | set(histograms[chosen]))
    summary: dict[str, Any] = {
        "clients": clients,
        "retries": clients * params["attempts"],
        "slot_ms": params["slot_ms"],
        "jitter": chosen,
        "busiest_slot": most,
        "busiest_slot_at_ms": at_ms,
        "busiest_slot_no_jitter": plain_most,
        "busiest_slot_no_jitter_at_ms": plain_at_ms,
    }
    for kind in JITTERS[1:]:
        summary[f"busiest_slot_{kind}"] = busiest(histograms[kind])[1]
    return {
        "summary": summary,
        "series": {
            "slot_start_ms": slots,
            "no_jitter": [histograms["none"].get(slot, 0) for slot in slots],
            f"{chosen}_jitter": [histograms[chosen].get(slot, 0) for slot in slots],
        },
        "tables": {
            "compare": table(
                f"Busiest {params['slot_ms']} ms slot: retries hitting the service at once",
                ["clients", "no jitter", "full", "equal", "decorrelated"],
                [[num(n), *(num(row[kind]) for kind in JITTERS)] for n, row in compare],
            ),
            "compare_data": {
                "clients": [n for n, _ in compare],
                **{kind: [row[kind] for _, row in compare] for kind in JITTERS},
            },
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, data = result["summary"], result["tables"]["compare_data"]
    slot = f"{s['slot_ms']} ms"
    lines = [
        f"{num(s['clients'])} clients fail together and make {num(s['retries'])} retries.",
        f"Without jitter the busiest {slot} slot holds {num(s['busiest_slot_no_jitter'])} "
        "retries: every client comes back in the same instant.",
        f"With {s['jitter']} jitter (seed {result['seed']}) the busiest {slot} slot holds "
        f"{num(s['busiest_slot'])} retries, at {num(s['busiest_slot_at_ms'])} ms.",
        "Other jitter, busiest slot: "
        + " · ".join(
            f"{kind} {num(s[f'busiest_slot_{kind}'])}"
            for kind in JITTERS[1:]
            if kind != s["jitter"]
        )
        + ".",
        f"{listed([num(n) for n in data['clients']])} clients → "
        f"{' / '.join(num(n) for n in data['none'])} without jitter, "
        f"{' / '.join(num(n) for n in data['full'])} with full jitter.",
    ]
    return lines


FIGURES = (
    Figure("clients", "Clients", "int"),
    Figure("retries", "Retries in all", "int"),
    Figure("slot_ms", "Slot width", "int", "ms"),
    Figure("jitter", "Jitter", "str"),
    Figure("busiest_slot", "Busiest slot", "int", "retries"),
    Figure("busiest_slot_at_ms", "Start of the busiest slot", "int", "ms", nullable=True),
    Figure("busiest_slot_no_jitter", "Busiest slot, no jitter", "int", "retries"),
    Figure(
        "busiest_slot_no_jitter_at_ms",
        "Start of the busiest slot, no jitter",
        "int",
        "ms",
        nullable=True,
    ),
    Figure("busiest_slot_full", "Busiest slot, full jitter", "int", "retries"),
    Figure("busiest_slot_equal", "Busiest slot, equal jitter", "int", "retries"),
    Figure("busiest_slot_decorrelated", "Busiest slot, decorrelated jitter", "int", "retries"),
)
