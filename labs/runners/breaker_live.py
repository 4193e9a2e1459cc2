"""Lesson 13's circuit breaker on a real queue, shared by every worker through Redis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.live import QUEUE_KEYS
from labs.catalogue.params import Param
from labs.experiments import outage
from labs.runners.common import table
from labs.runners.experiment import FOOTER_FIGURES, experiment_context, run_footer
from labs.runs.progress import Progress
from labs.text import num

MAX_SENDING_S = 30.0

# How the catalogue runs this lab (read by `Lab.from_runner`).
KIND = "experiment"
KEEPS_DLQ = True

PARAMS = (
    Param(
        "messages", "Fee payments", "int", 90, "Payments sent to the queue at a steady rate.",
        min=1, max=1000, group="Payments",
    ),
    Param(
        "arrival_rate_per_s", "Payments per second", "float", 30.0,
        "How fast payments arrive.", min=1, max=200, group="Payments", unit="/s",
    ),
    Param(
        "workers", "Workers", "int", 4,
        "Worker threads; each has its own breaker object, all keep its state in Redis.",
        min=1, max=16, group="Payments",
    ),
    Param(
        "visibility_timeout_s", "Visibility timeout", "float", 0.5,
        "A payment that failed (or failed fast) comes round again after this.",
        min=0.1, max=5, group="Payments", unit="s",
    ),
    Param(
        "max_receives", "maxReceiveCount", "int", 50,
        "A payment received this many times without success is parked in the DLQ.",
        min=1, max=100, group="Payments",
    ),
    Param(
        "down_from_s", "Service down from", "float", 0.5,
        "Seconds after the first payment when the payments service starts failing.",
        min=0, max=20, group="Outage", unit="s",
    ),
    Param(
        "down_for_s", "Down for", "float", 1.5, "How long every call fails.",
        min=0.1, max=20, group="Outage", unit="s",
    ),
    Param(
        "fail_max", "Failures in a row before it opens", "int", 5,
        "The breaker opens for every worker after this many failed calls in a row.",
        min=1, max=50, group="Breaker",
    ),
    Param(
        "reset_timeout_s", "Open time", "float", 0.5,
        "How long the breaker stays open before one trial call (half-open).",
        min=0.1, max=5, group="Breaker", unit="s",
    ),
)  # fmt: skip

LIVE_KEYS = (*QUEUE_KEYS, "breaker_state", "breaker_level", "service_down")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    sending_s = params["messages"] / params["arrival_rate_per_s"]
    if sending_s > MAX_SENDING_S:
        errors["messages"] = (
            f"{params['messages']} payments at {params['arrival_rate_per_s']:g}/s take "
            f"{sending_s:.1f} s to arrive; keep it at most {MAX_SENDING_S:g} s."
        )
    elif params["down_from_s"] >= sending_s:
        errors["down_from_s"] = (
            f"The outage must start while payments still arrive (before {sending_s:.1f} s), "
            "or no call meets it."
        )
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Send the payments through the shared breaker while the service is down for a while."""
    result = outage(
        params["messages"],
        params["workers"],
        params["arrival_rate_per_s"],
        down_from_s=params["down_from_s"],
        down_for_s=params["down_for_s"],
        fail_max=params["fail_max"],
        reset_timeout_s=params["reset_timeout_s"],
        visibility_timeout_s=params["visibility_timeout_s"],
        max_receives=params["max_receives"],
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s = result["summary"]
    timeline = result["tables"]["breaker_timeline"]
    return {
        "summary": {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s),
        "series": result["series"],
        "tables": {
            "changes": table(
                "The breaker's state changes, as the workers made them in Redis",
                ["at", "state"],
                [[f"{row['t_s']:.2f} s", row["state"]] for row in timeline],
            ),
            "timeline": timeline,
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        f"The payments service was down from {s['down_from_s']:g} s to {s['down_until_s']:g} s. "
        f"The shared breaker opened {num(s['opened'])} time(s).",
        f"{num(s['reached_sick_service'])} calls reached the sick service; "
        f"{num(s['failed_fast'])} failed fast without calling it.",
    ]
    first = s["first_ok_after_recovery_s"]
    lines.append(
        "No call succeeded after the service came back: watch for longer."
        if first is None
        else f"The first payment after the recovery went through {first:.2f} s after the "
        "service was back."
    )
    lines.append(
        f"{num(s['made'])} of {num(s['sent'])} payments charged, {num(s['dlq'])} parked in the "
        f"DLQ; duplicate charges: {num(s['duplicate_effects'])}. The breaker ended "
        f"{s['state_at_end']}."
    )
    if s["stopped_early"]:
        lines.append(f"The run stopped early ({s['stop_reason']}).")
    return lines


FIGURES = (
    Figure("messages", "Payments to send", "int", "messages"),
    Figure("sent", "Payments sent", "int", "messages"),
    Figure("made", "Payments charged", "int", "messages"),
    Figure("dlq", "Parked in the DLQ", "int", "messages"),
    Figure("lost", "Not finished", "int", "messages"),
    Figure("down_from_s", "Service down from", "float", "s"),
    Figure("down_until_s", "Service back at", "float", "s"),
    Figure("reached_sick_service", "Calls that reached the sick service", "int", "calls"),
    Figure("failed_fast", "Calls that failed fast", "int", "calls"),
    Figure("opened", "Times the breaker opened", "int"),
    Figure(
        "first_ok_after_recovery_s", "First success after the recovery", "float", "s",
        nullable=True,
    ),
    Figure("state_at_end", "Breaker state at the end", "str"),
    Figure("receives", "Receives", "int", "receives"),
    Figure("fees_charged", "Fees charged (effects)", "int"),
    Figure("duplicate_effects", "Fees charged twice", "int"),
    *FOOTER_FIGURES,
)  # fmt: skip
