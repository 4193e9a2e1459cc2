"""Lesson 13's polite retries on a real queue: full-jitter backoff (tenacity) on a flaky service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments import flaky
from labs.experiments.retries import backoff_ceiling_s
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.live import QUEUE_KEYS
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.common import table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, num, phrase

LATENCY_S = 0.002  # one call to the stand-in payments service
MAX_WORST_S = 50.0

# How the catalogue runs this lab (declared in `RUNNER` below).
KEEPS_DLQ = True
USES_SEED = True
# Over 20 seeds: the share of first tries that worked, beside the 1 - p theory expects.
SPREAD = Spread("first_try_ok_share", expected="expected_first_try_ok_share", percent=True)

PARAMS = (
    Param(
        "messages",
        gettext_noop("Fee payments"),
        "int",
        100,
        gettext_noop("Messages on the queue, one fee each."),
        min=1,
        max=1000,
        group=gettext_noop("The queue"),
        limit=phrase(
            gettext_noop(
                "Together with the tries, workers and waits: if every call failed, the run "
                "would take at most %(most)s s."
            ),
            most=num(MAX_WORST_S),
        ),
    ),
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        4,
        gettext_noop("Worker threads charging fees."),
        min=1,
        max=16,
        group=gettext_noop("The queue"),
    ),
    Param(
        "max_receives",
        gettext_noop("maxReceiveCount"),
        "int",
        2,
        gettext_noop(
            "A payment whose tries all fail this many receives in a row is parked in the DLQ."
        ),
        min=1,
        max=10,
        group=gettext_noop("The queue"),
    ),
    Param(
        "visibility_timeout_s",
        gettext_noop("Visibility timeout"),
        "float",
        0.5,
        gettext_noop("A payment given back comes round again after this."),
        min=0.1,
        max=5,
        group=gettext_noop("The queue"),
        unit=gettext_noop("s"),
    ),
    Param(
        "fail_p",
        gettext_noop("Chance a call fails"),
        "float",
        0.5,
        gettext_noop(
            "Each call to the payments service fails with this probability (drawn from the seed)."
        ),
        min=0,
        max=0.95,
        group=gettext_noop("The flaky service"),
    ),
    Param(
        "attempts",
        gettext_noop("Tries per receive"),
        "int",
        3,
        gettext_noop("A worker calls up to this many times before it gives the message back."),
        min=1,
        max=8,
        group=gettext_noop("Retries"),
    ),
    Param(
        "base_s",
        gettext_noop("First backoff"),
        "float",
        0.01,
        gettext_noop(
            "The wait before retry n is random in [0, min(cap, first × 2ⁿ⁻¹)): full jitter."
        ),
        min=0,
        max=0.5,
        group=gettext_noop("Retries"),
        unit=gettext_noop("s"),
    ),
    Param(
        "cap_s",
        gettext_noop("Backoff cap"),
        "float",
        0.16,
        gettext_noop("No wait is longer than this."),
        min=0,
        max=2,
        group=gettext_noop("Retries"),
        unit=gettext_noop("s"),
    ),
)

LIVE_KEYS = (*QUEUE_KEYS, "receives")


def worst_case_s(params: Mapping[str, Any]) -> float:
    """The run's length if every call failed: every receive tries and waits its longest."""
    tries = params["attempts"]
    per_receive = tries * LATENCY_S + sum(
        backoff_ceiling_s(n, params["base_s"], params["cap_s"]) for n in range(1, tries)
    )
    receives = params["messages"] * params["max_receives"]
    return receives * per_receive / params["workers"] + (
        params["max_receives"] * params["visibility_timeout_s"]
    )


def check(params: Mapping[str, Any]) -> dict[str, str]:
    worst = worst_case_s(params)
    if worst > MAX_WORST_S:
        return {
            "messages": gettext(
                "If every call failed this run would take %(s)s s; keep it under %(most)s s: "
                "fewer payments or tries, more workers, or shorter waits."
            )
            % {"s": f"{worst:,.0f}", "most": f"{MAX_WORST_S:g}"}
        }
    return {}


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Charge every fee through the flaky service; which calls fail is drawn from `seed`."""
    result = flaky(
        params["messages"],
        params["workers"],
        params["fail_p"],
        params["attempts"],
        base_s=params["base_s"],
        cap_s=params["cap_s"],
        latency_s=LATENCY_S,
        visibility_timeout_s=params["visibility_timeout_s"],
        max_receives=params["max_receives"],
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s = result["summary"]
    p = params["fail_p"]
    histogram = result["tables"]["ok_on_attempt"]
    receives = max(1, s["receives"])
    return {
        "summary": {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s),
        "series": result["series"],
        "tables": {
            "attempts": table(
                gettext_noop("Receives by the try that worked"),
                [gettext_noop("try"), gettext_noop("receives"), gettext_noop("expected")],
                [
                    [
                        row["attempt"],
                        row["receives_ok"],
                        round(receives * p ** (row["attempt"] - 1) * (1 - p), 1)
                        if isinstance(row["attempt"], int)
                        else round(receives * p ** params["attempts"], 1),
                    ]
                    for row in histogram
                ],
            ),
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        gettext(
            "%(n)s fees through a service failing %(p)s of calls, up to %(tries)s tries per "
            "receive with full-jitter backoff."
        )
        % {"n": num(s["messages"]), "p": f"{s['fail_p']:.0%}", "tries": num(s["attempts"])},
        gettext(
            "%(first)s of receives worked on the first try (expected %(first_exp)s); %(within)s "
            "within %(tries)s tries (expected %(within_exp)s)."
        )
        % {
            "first": f"{s['first_try_ok_share']:.1%}",
            "first_exp": f"{s['expected_first_try_ok_share']:.1%}",
            "within": f"{s['ok_within_attempts_share']:.1%}",
            "tries": num(s["attempts"]),
            "within_exp": f"{s['expected_ok_within_attempts_share']:.1%}",
        },
        gettext(
            "%(n)s retries waited %(mean)s ms on average; the policy allows at most %(most)s ms "
            "and the longest wait was %(longest)s ms."
        )
        % {
            "n": num(s["retries"]),
            "mean": f"{s['mean_wait_s'] * 1000:,.0f}",
            "most": f"{s['longest_possible_wait_s'] * 1000:,.0f}",
            "longest": f"{s['max_wait_s'] * 1000:,.0f}",
        },
        gettext(
            "%(made)s fees charged, %(dlq)s parked in the DLQ after every try of every receive "
            "failed; duplicate charges: %(dup)s."
        )
        % {"made": num(s["made"]), "dlq": num(s["dlq"]), "dup": num(s["duplicate_effects"])},
    ]
    if s["lost"]:
        lines.append(
            gettext("%(n)s payments were still in the queue when the run stopped.")
            % {"n": num(s["lost"])}
        )
    return lines


FIGURES = (
    Figure("messages", gettext_noop("Fee payments"), "int", gettext_noop("messages")),
    Figure("fail_p", gettext_noop("Chance a call fails"), "float"),
    Figure("attempts", gettext_noop("Tries per receive"), "int"),
    Figure("made", gettext_noop("Fees charged"), "int", gettext_noop("messages")),
    Figure("dlq", gettext_noop("Parked in the DLQ"), "int", gettext_noop("messages")),
    Figure("lost", gettext_noop("Not finished"), "int", gettext_noop("messages")),
    Figure("receives", gettext_noop("Receives"), "int", gettext_noop("receives")),
    Figure("calls", gettext_noop("Calls to the service"), "int", gettext_noop("calls")),
    Figure("failed_calls", gettext_noop("Calls that failed"), "int", gettext_noop("calls")),
    Figure("retries", gettext_noop("Retries"), "int", gettext_noop("calls")),
    Figure("first_try_ok_share", gettext_noop("Receives that worked first time"), "float"),
    Figure("expected_first_try_ok_share", gettext_noop("… expected"), "float"),
    Figure(
        "ok_within_attempts_share", gettext_noop("Receives that worked within the tries"), "float"
    ),
    Figure("expected_ok_within_attempts_share", gettext_noop("… expected"), "float"),
    Figure("mean_wait_s", gettext_noop("Mean backoff wait"), "float", gettext_noop("s")),
    Figure("max_wait_s", gettext_noop("Longest backoff wait"), "float", gettext_noop("s")),
    Figure(
        "longest_possible_wait_s",
        gettext_noop("Longest wait the policy allows"),
        "float",
        gettext_noop("s"),
    ),
    Figure("fees_charged", gettext_noop("Fees charged (effects)"), "int"),
    Figure("duplicate_effects", gettext_noop("Fees charged twice"), "int"),
    *FOOTER_FIGURES,
)


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds at worst: every call fails, every wait is its longest (`worst_case_s`)."""
    return wall_cost(worst_case_s(params), ("messages", "attempts", "max_receives"))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    uses_seed=USES_SEED,
    keeps_dlq=KEEPS_DLQ,
    cost=cost,
    spread=SPREAD,
)
