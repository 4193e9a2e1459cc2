"""Lesson 13's polite retries on a real queue: full-jitter backoff (tenacity) on a flaky service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.live import QUEUE_KEYS
from labs.catalogue.params import Param
from labs.experiments import flaky
from labs.experiments.retries import backoff_ceiling_s
from labs.runners.common import table
from labs.runners.experiment import FOOTER_FIGURES, experiment_context, run_footer
from labs.runs.progress import Progress
from labs.text import num

LATENCY_S = 0.002  # one call to the stand-in payments service
MAX_WORST_S = 50.0

# How the catalogue runs this lab (read by `Lab.from_runner`).
KIND = "experiment"
KEEPS_DLQ = True
USES_SEED = True

PARAMS = (
    Param(
        "messages", "Fee payments", "int", 100, "Messages on the queue, one fee each.",
        min=1, max=1000, group="The queue",
    ),
    Param(
        "workers", "Workers", "int", 4, "Worker threads charging fees.",
        min=1, max=16, group="The queue",
    ),
    Param(
        "max_receives", "maxReceiveCount", "int", 2,
        "A payment whose tries all fail this many receives in a row is parked in the DLQ.",
        min=1, max=10, group="The queue",
    ),
    Param(
        "visibility_timeout_s", "Visibility timeout", "float", 0.5,
        "A payment given back comes round again after this.",
        min=0.1, max=5, group="The queue", unit="s",
    ),
    Param(
        "fail_p", "Chance a call fails", "float", 0.5,
        "Each call to the payments service fails with this probability (drawn from the seed).",
        min=0, max=0.95, group="The flaky service",
    ),
    Param(
        "attempts", "Tries per receive", "int", 3,
        "A worker calls up to this many times before it gives the message back.",
        min=1, max=8, group="Retries",
    ),
    Param(
        "base_s", "First backoff", "float", 0.01,
        "The wait before retry n is random in [0, min(cap, first × 2ⁿ⁻¹)): full jitter.",
        min=0, max=0.5, group="Retries", unit="s",
    ),
    Param(
        "cap_s", "Backoff cap", "float", 0.16, "No wait is longer than this.",
        min=0, max=2, group="Retries", unit="s",
    ),
)  # fmt: skip

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
            "messages": f"If every call failed this run would take {worst:,.0f} s; keep it under "
            f"{MAX_WORST_S:g} s: fewer payments or tries, more workers, or shorter waits."
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
                "Receives by the try that worked",
                ["try", "receives", "expected"],
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
        f"{num(s['messages'])} fees through a service failing {s['fail_p']:.0%} of calls, "
        f"up to {num(s['attempts'])} tries per receive with full-jitter backoff.",
        f"{s['first_try_ok_share']:.1%} of receives worked on the first try (expected "
        f"{s['expected_first_try_ok_share']:.1%}); {s['ok_within_attempts_share']:.1%} within "
        f"{num(s['attempts'])} tries (expected {s['expected_ok_within_attempts_share']:.1%}).",
        f"{num(s['retries'])} retries waited {s['mean_wait_s'] * 1000:,.0f} ms on average; "
        f"the policy allows at most {s['longest_possible_wait_s'] * 1000:,.0f} ms and the "
        f"longest wait was {s['max_wait_s'] * 1000:,.0f} ms.",
        f"{num(s['made'])} fees charged, {num(s['dlq'])} parked in the DLQ after "
        f"every try of every receive failed; duplicate charges: {num(s['duplicate_effects'])}.",
    ]
    if s["lost"]:
        lines.append(f"{num(s['lost'])} payments were still in the queue when the run stopped.")
    if s["stopped_early"]:
        lines.append(f"The run stopped early ({s['stop_reason']}).")
    return lines


FIGURES = (
    Figure("messages", "Fee payments", "int", "messages"),
    Figure("fail_p", "Chance a call fails", "float"),
    Figure("attempts", "Tries per receive", "int"),
    Figure("made", "Fees charged", "int", "messages"),
    Figure("dlq", "Parked in the DLQ", "int", "messages"),
    Figure("lost", "Not finished", "int", "messages"),
    Figure("receives", "Receives", "int", "receives"),
    Figure("calls", "Calls to the service", "int", "calls"),
    Figure("failed_calls", "Calls that failed", "int", "calls"),
    Figure("retries", "Retries", "int", "calls"),
    Figure("first_try_ok_share", "Receives that worked first time", "float"),
    Figure("expected_first_try_ok_share", "… expected", "float"),
    Figure("ok_within_attempts_share", "Receives that worked within the tries", "float"),
    Figure("expected_ok_within_attempts_share", "… expected", "float"),
    Figure("mean_wait_s", "Mean backoff wait", "float", "s"),
    Figure("max_wait_s", "Longest backoff wait", "float", "s"),
    Figure("longest_possible_wait_s", "Longest wait the policy allows", "float", "s"),
    Figure("fees_charged", "Fees charged (effects)", "int"),
    Figure("duplicate_effects", "Fees charged twice", "int"),
    *FOOTER_FIGURES,
)
