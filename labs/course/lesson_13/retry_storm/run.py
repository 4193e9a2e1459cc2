"""Lesson 13's retry storm: many clients fail together; jitter spreads their retries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.course.lesson_13.backoff.run import wait_params
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.common import table
from labs.sim import JITTERS, RETRY_STORM_SEED, retry_histogram
from labs.sim.capstone.cost import Cost
from labs.sim.retry_storm import retry_until_done
from labs.text import gettext, gettext_noop, listed, num, phrase

# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread("busiest_slot")
DEFAULT_SEED = RETRY_STORM_SEED  # the lesson's 21 / 81 / 292 come out nearly exact

PARAMS = (
    Param(
        "clients",
        gettext_noop("Clients that fail together"),
        "int",
        500,
        gettext_noop(
            "Every client's call fails at the same moment; the chart shows their retries."
        ),
        min=1,
        max=3_000,
        group=gettext_noop("The storm on the chart"),
    ),
    Param(
        "jitter",
        gettext_noop("Jitter on the chart"),
        "choice",
        "full",
        gettext_noop("The kind of jitter drawn against no jitter at all."),
        choices=(
            ("full", gettext_noop("Full: 0 up to the wait")),
            ("equal", gettext_noop("Equal: half the wait plus a random half")),
            ("decorrelated", gettext_noop("Decorrelated: up to 3 × the wait before")),
        ),
        group=gettext_noop("The storm on the chart"),
    ),
    Param(
        "compare_clients",
        gettext_noop("Client counts to compare"),
        "int_list",
        [100, 500, 2_000],
        gettext_noop("Comma-separated: the busiest slot for each count and every kind of jitter."),
        min=1,
        max=3_000,
        max_items=3,
        group=gettext_noop("Compare"),
    ),
    Param(
        "attempts",
        gettext_noop("Retries per client"),
        "int",
        4,
        gettext_noop("How many times each client tries again."),
        min=1,
        max=6,
        group=gettext_noop("Backoff"),
    ),
    *wait_params(most_base_ms=10_000, most_cap_ms=10_000),
    Param(
        "served_per_slot",
        gettext_noop("Calls the service answers per slot"),
        "int",
        50,
        gettext_noop(
            "For the second model: in each slot the service answers this many calls; the "
            "rest fail and their clients wait and try again."
        ),
        min=1,
        max=1_000,
        group=gettext_noop("Until they succeed"),
    ),
    Param(
        "retry_budget",
        gettext_noop("Retries a client may spend"),
        "int",
        8,
        gettext_noop("For the second model: after this many retries a client gives up."),
        min=1,
        max=10,
        group=gettext_noop("Until they succeed"),
    ),
    Param(
        "slot_ms",
        gettext_noop("Slot width"),
        "int",
        10,
        gettext_noop("Retries are counted in slots of this many milliseconds."),
        min=1,
        max=1_000,
        group=gettext_noop("Backoff"),
        unit=gettext_noop("ms"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    if params["cap_ms"] < params["base_ms"]:
        errors["cap_ms"] = gettext(
            "The longest wait must be at least the first wait (%(ms)s ms)."
        ) % {"ms": num(params["base_ms"])}
    counts = params["compare_clients"]
    if len(set(counts)) != len(counts):
        errors["compare_clients"] = gettext("Give each client count only once.")
    return errors


def busiest(histogram: Mapping[float, int]) -> tuple[float | None, int]:
    """(start of the busiest slot in ms, retries in it); the earliest wins a tie."""
    if not histogram:
        return None, 0
    start = max(histogram, key=lambda slot: (histogram[slot], -slot))
    return start, histogram[start]


# Worst seconds of one core per retry drawn (every jitter, every client count): 2.1 s for
# the 432,000 draws at the form's limits on the loaded 2-core reference machine.
SECONDS_PER_DRAW = 6.0e-6


def cost(params: Mapping[str, Any]) -> Cost:
    """An upper bound on the run's worker time: every client's every retry, for each jitter."""
    clients = params["clients"] + sum(params["compare_clients"])
    draws = clients * params["attempts"] * len(JITTERS)
    # The second model: every client's budget drawn for each jitter, each retry a call.
    draws += 2 * params["clients"] * params["retry_budget"] * len(JITTERS)
    return Cost(
        draws * SECONDS_PER_DRAW, ("clients", "compare_clients", "attempts", "retry_budget")
    )


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
    # The second model: clients stop once they succeed, or after their retry budget.
    for kind in JITTERS:
        done = retry_until_done(
            clients,
            params["retry_budget"],
            kind,
            seed,
            params["served_per_slot"],
            params["slot_ms"],
            params["base_ms"],
            params["cap_ms"],
        )
        summary[f"until_calls_{kind}"] = done["calls"]
        summary[f"until_last_ms_{kind}"] = done["last_served_ms"]
        summary[f"until_gave_up_{kind}"] = done["gave_up"]
    # The chosen jitter's figures again under plain names, for challenges and the spread.
    for name in ("calls", "last_ms", "gave_up"):
        summary[f"until_{name}"] = summary[f"until_{name}_{chosen}"]
    return {
        "summary": summary,
        "series": {
            "slot_start_ms": slots,
            "no_jitter": [histograms["none"].get(slot, 0) for slot in slots],
            f"{chosen}_jitter": [histograms[chosen].get(slot, 0) for slot in slots],
        },
        "tables": {
            "compare": table(
                phrase(
                    gettext_noop("Busiest %(ms)s ms slot: retries hitting the service at once"),
                    ms=params["slot_ms"],
                ),
                [
                    gettext_noop("clients"),
                    gettext_noop("no jitter"),
                    gettext_noop("full"),
                    gettext_noop("equal"),
                    gettext_noop("decorrelated"),
                ],
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
    slot = s["slot_ms"]
    others = " · ".join(
        f"{kind} {num(s[f'busiest_slot_{kind}'])}" for kind in JITTERS[1:] if kind != s["jitter"]
    )
    lines = [
        gettext("%(n)s clients fail together and make %(r)s retries.")
        % {"n": num(s["clients"]), "r": num(s["retries"])},
        gettext(
            "Without jitter the busiest %(slot)s ms slot holds %(n)s retries: every client comes "
            "back in the same instant."
        )
        % {"slot": slot, "n": num(s["busiest_slot_no_jitter"])},
        gettext(
            "With %(jitter)s jitter (seed %(seed)s) the busiest %(slot)s ms slot holds %(n)s "
            "retries, at %(at)s ms."
        )
        % {
            "jitter": s["jitter"],
            "seed": result["seed"],
            "slot": slot,
            "n": num(s["busiest_slot"]),
            "at": num(s["busiest_slot_at_ms"]),
        },
        gettext("Other jitter, busiest slot: %(others)s.") % {"others": others},
        gettext("%(clients)s clients → %(none)s without jitter, %(full)s with full jitter.")
        % {
            "clients": listed([num(n) for n in data["clients"]], gettext("and")),
            "none": " / ".join(num(n) for n in data["none"]),
            "full": " / ".join(num(n) for n in data["full"]),
        },
        gettext(
            "Here every client makes all %(n)s of its retries whatever the jitter, so the "
            "total work is fixed: jitter only moves the peak."
        )
        % {"n": num(result["params"]["attempts"])},
    ]
    p = result["params"]
    lines.append(
        gettext(
            "If instead each client stops once it succeeds (the service answers %(served)s "
            "calls per %(slot)s ms slot; a client gives up after %(budget)s retries):"
        )
        % {"served": num(p["served_per_slot"]), "slot": slot, "budget": num(p["retry_budget"])}
    )
    for kind, words in UNTIL_WORDS:
        last = s[f"until_last_ms_{kind}"]
        lines.append(
            gettext(words)
            % {
                "calls": num(s[f"until_calls_{kind}"]),
                "last": "—" if last is None else num(round(last)),
                "gave_up": num(s[f"until_gave_up_{kind}"]),
            }
        )
    return lines


UNTIL_WORDS = (
    (
        "none",
        gettext_noop(
            "no jitter: %(calls)s calls in all, the last client served at %(last)s ms, "
            "%(gave_up)s gave up;"
        ),
    ),
    (
        "full",
        gettext_noop(
            "full jitter: %(calls)s calls, the last served at %(last)s ms, %(gave_up)s gave up;"
        ),
    ),
    (
        "equal",
        gettext_noop(
            "equal jitter: %(calls)s calls, the last served at %(last)s ms, %(gave_up)s gave up;"
        ),
    ),
    (
        "decorrelated",
        gettext_noop(
            "decorrelated jitter: %(calls)s calls, the last served at %(last)s ms, "
            "%(gave_up)s gave up."
        ),
    ),
)


UNTIL_FIGURES = tuple(
    figure
    for kind, name in (
        ("none", gettext_noop("no jitter")),
        ("full", gettext_noop("full jitter")),
        ("equal", gettext_noop("equal jitter")),
        ("decorrelated", gettext_noop("decorrelated jitter")),
    )
    for figure in (
        Figure(
            f"until_calls_{kind}",
            phrase(gettext_noop("Calls until served, %(jitter)s"), jitter=name),
            "int",
        ),
        Figure(
            f"until_last_ms_{kind}",
            phrase(gettext_noop("Last client served, %(jitter)s"), jitter=name),
            "float",
            gettext_noop("ms"),
            nullable=True,
        ),
        Figure(
            f"until_gave_up_{kind}",
            phrase(gettext_noop("Clients that gave up, %(jitter)s"), jitter=name),
            "int",
        ),
    )
)

FIGURES = (
    Figure("clients", gettext_noop("Clients"), "int"),
    Figure("retries", gettext_noop("Retries in all"), "int"),
    Figure("slot_ms", gettext_noop("Slot width"), "int", gettext_noop("ms")),
    Figure("jitter", gettext_noop("Jitter"), "str"),
    Figure("busiest_slot", gettext_noop("Busiest slot"), "int", gettext_noop("retries")),
    Figure(
        "busiest_slot_at_ms",
        gettext_noop("Start of the busiest slot"),
        "int",
        gettext_noop("ms"),
        nullable=True,
    ),
    Figure(
        "busiest_slot_no_jitter",
        gettext_noop("Busiest slot, no jitter"),
        "int",
        gettext_noop("retries"),
    ),
    Figure(
        "busiest_slot_no_jitter_at_ms",
        gettext_noop("Start of the busiest slot, no jitter"),
        "int",
        gettext_noop("ms"),
        nullable=True,
    ),
    Figure(
        "busiest_slot_full",
        gettext_noop("Busiest slot, full jitter"),
        "int",
        gettext_noop("retries"),
    ),
    Figure(
        "busiest_slot_equal",
        gettext_noop("Busiest slot, equal jitter"),
        "int",
        gettext_noop("retries"),
    ),
    Figure(
        "busiest_slot_decorrelated",
        gettext_noop("Busiest slot, decorrelated jitter"),
        "int",
        gettext_noop("retries"),
    ),
    *UNTIL_FIGURES,
    Figure("until_calls", gettext_noop("Calls until served, the chosen jitter"), "int"),
    Figure(
        "until_last_ms",
        gettext_noop("Last client served, the chosen jitter"),
        "float",
        gettext_noop("ms"),
        nullable=True,
    ),
    Figure("until_gave_up", gettext_noop("Clients that gave up, the chosen jitter"), "int"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    uses_seed=USES_SEED,
    default_seed=DEFAULT_SEED,
    cost=cost,
    spread=SPREAD,
)
