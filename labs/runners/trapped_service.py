"""Assignment 05's main lab: a spike ends, the service stays stuck, and the controls that free it.

The params come from the model's own specs (`LAB_PARAM_SPECS["trapped_service"]`); this
module only lays them out under the form's headings and gives each a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from labs.capstone.controls import controls_on
from labs.catalogue.figures import Figure, latency_figures
from labs.catalogue.params import params_from_specs
from labs.runners.common import model_errors
from labs.runs.progress import Progress
from labs.sim.capstone import LAB_PARAM_SPECS, trapped_service
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.params import TrappedParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import listed, num

# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED  # the seed the assignment's figures come from
TIME_LIMIT_S = 60

CONTROLS_GROUP = "Recovery controls"
LAYOUT = (
    (
        "Workload",
        (
            ("horizon_s", "Simulated time"),
            ("base_rps", "Normal new requests per second"),
            ("payment_share", "Share of requests that are payments"),
            ("cost_spread", "Cost spread of jobs"),
        ),
    ),
    (
        "Service",
        (
            ("workers", "Workers"),
            ("service_ms", "Time for one request"),
            ("service_dist", "Spread of that time"),
            ("queue_limit", "Queue size limit"),
            ("discipline", "Which request a worker takes next"),
        ),
    ),
    (
        "Clients",
        (
            ("client_timeout_ms", "Caller's timeout for one attempt"),
            ("max_attempts", "Attempts per call"),
            ("retry_layers", "Layers that retry"),
            ("backoff_base_ms", "First backoff"),
            ("backoff_cap_ms", "Longest backoff"),
            ("jitter", "Jitter"),
        ),
    ),
    (
        "Trigger",
        (
            ("trigger_start_s", "Trigger starts at"),
            ("trigger_end_s", "Trigger ends at"),
            ("spike_rps", "New requests per second during the trigger"),
            ("slowdown_factor", "Service slowdown during the trigger"),
            ("workers_lost", "Workers lost during the trigger"),
        ),
    ),
    (
        CONTROLS_GROUP,
        (
            ("recover_at_s", "Controls start at"),
            ("admission_limit", "Admission limit"),
            ("admit_rps", "Admit at most (per second)"),
            ("reopen_ramp_s", "Reopen gradually over"),
            ("limit_retries", "Retry budget"),
            ("retry_budget", "Retries per new request"),
            ("drop_expired", "Drop expired reads"),
            ("drop_cost_ms", "Time to drop one expired item"),
            ("drop_payments", "Drop expired payments too (naive)"),
            ("reconcile_payments", "Reconcile timed-out payments"),
            ("reconcile_delay_s", "Reconciliation delay"),
            ("reserve_share", "Workers kept for fresh requests"),
        ),
    ),
)
PARAMS = params_from_specs(LAB_PARAM_SPECS["trapped_service"], LAYOUT)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The model's cross-field rules (trigger inside the run, not both drop and reconcile...)."""
    return model_errors(TrappedParams, params)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """One run of the service through its trigger and, if any are on, its controls."""
    result = trapped_service(seed=seed, **params)
    progress.update(1, 1)
    return result


def _s(value: float) -> str:
    return f"{num(round(value, 1))} s"


def _rate(value: float) -> str:
    return f"{num(round(value, 1))}/s"


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    start, end, at = p["trigger_start_s"], p["trigger_end_s"], p["recover_at_s"]
    extra = []
    if p["slowdown_factor"] > 1:
        extra.append(f"every request took {num(p['slowdown_factor'])}× as long")
    if p["workers_lost"]:
        extra.append(f"{p['workers_lost']} of {p['workers']} workers were missing")
    word = "trigger" if extra or p["spike_rps"] <= p["base_rps"] else "spike"
    lines = [
        f"The {word} ran from {_s(start)} to {_s(end)}: {num(p['spike_rps'])} new requests/s "
        f"against a capacity of {_rate(s['capacity_rps'])} (normal load "
        f"{_rate(p['base_rps'])})" + (f"; {listed(extra)}." if extra else ".")
    ]
    on = controls_on(p)
    rec = s["recovered_at_s"]
    lost = s["obligations_lost"]
    by_itself = rec is not None and (not on or rec < at)
    if rec is None:
        lines.append(
            f"The {word} ended at {_s(end)} but the queue was still {num(s['final_backlog'])} "
            f"deep at {_s(p['horizon_s'])}, and its oldest request had waited "
            f"{_s(s['final_oldest_age_s'])}: the service stayed trapped."
        )
    elif by_itself:
        lines.append(
            f"It recovered by itself at {_s(rec)}, {_s(rec - end)} after the {word} ended."
        )
    else:
        payments = "no payment was lost" if lost == 0 else f"{num(lost)} payments were lost"
        lines.append(
            f"With the controls on from {_s(at)} it recovered at {_s(rec)} and {payments}."
        )
    attempts = s["amplification"]
    lines.append(
        f"Useful answers: {_rate(s['goodput_before_rps'])} before the {word}, "
        f"{_rate(s['goodput_after_rps'])} after it, {_rate(s['goodput_last_30s_rps'])} in the "
        f"last 30 s. Each new request became {num(attempts)} "
        f"attempt{'' if attempts == 1 else 's'}, and over the whole run "
        f"{num(round(100 * s['wasted_share']))}% of the workers' time went to callers who had "
        "already gone."
    )
    lines.append("Controls on: " + (listed(on) + "." if on else "none."))
    lines.append(_payments(s))
    if not by_itself:
        lines.append(_drain(s, at))
    return lines


def _payments(s: Mapping[str, Any]) -> str:
    parts = [
        f"{num(s['obligations_' + state])} {words}"
        for state, words in (
            ("confirmed", "confirmed"),
            ("reconciled", "reconciled later"),
            ("failed", "refused (the caller was told)"),
            ("pending", "still pending"),
            ("reconciling", "being reconciled"),
            ("unknown", "unknown (nobody in charge)"),
            ("lost", "lost without a record"),
        )
        if s["obligations_" + state]
    ]
    text = f"Payments: {num(s['obligations_total'])} in all"
    return text + (": " + listed(parts) + "." if parts else ".")


def _drain(s: Mapping[str, Any], at: float) -> str:
    est, actual = s["drain_estimate_s"], s["actual_drain_s"]
    net = s["drain_net_rps"]
    rate = (
        f"{num(net)}/s of spare capacity"
        if net > 0
        else f"{num(round(-net, 1))}/s more arriving than the workers could finish"
    )
    start = f"At {_s(at)} the queue held {num(s['drain_backlog'])} requests and {rate}"
    guess = "it would never drain" if est is None else f"it would drain in {_s(est)}"
    outcome = "it did not drain" if actual is None else f"it drained in {_s(actual)}"
    why = f" ({s['drain_gap']})" if s["drain_gap"] else ""
    return f"{start}: the estimate said {guess}; {outcome}{why}."


FIGURES = (
    Figure("recovered", "Recovered", "bool"),
    Figure("recovered_at_s", "Second it recovered", "float", "s", nullable=True),
    Figure("peak_backlog", "Peak backlog", "int", "requests"),
    Figure("final_backlog", "Backlog at the end", "int", "requests"),
    Figure("final_oldest_age_s", "Age of the oldest request at the end", "float", "s"),
    Figure("capacity_rps", "Capacity", "float", "req/s"),
    Figure("goodput_before_rps", "Useful answers before the trigger", "float", "req/s"),
    Figure("goodput_during_rps", "Useful answers during the trigger", "float", "req/s"),
    Figure("goodput_after_rps", "Useful answers after the trigger", "float", "req/s"),
    Figure("goodput_last_30s_rps", "Useful answers in the last 30 s", "float", "req/s"),
    Figure("goodput_recovered", "Useful answers back to normal", "bool"),
    Figure("original_requests", "Original requests", "int"),
    Figure("retries", "Retries", "int"),
    Figure("amplification", "Attempts per original request", "float"),
    Figure("rejected", "Rejected at once (429/503)", "int"),
    Figure("expired_dropped", "Expired requests dropped", "int"),
    Figure("wasted_completions", "Answers nobody waited for", "int"),
    Figure("useful_completions", "Answers someone waited for", "int"),
    Figure("wasted_share", "Share of work wasted", "float"),
    Figure("obligations_total", "Payments", "int"),
    Figure("obligations_pending", "Payments still pending", "int"),
    Figure("obligations_unknown", "Payments in an unknown state", "int"),
    Figure("obligations_reconciling", "Payments being reconciled", "int"),
    Figure("obligations_confirmed", "Payments confirmed", "int"),
    Figure("obligations_reconciled", "Payments reconciled", "int"),
    Figure("obligations_failed", "Payments explicitly failed", "int"),
    Figure("obligations_lost", "Payments lost", "int"),
    Figure("obligations_unresolved", "Payments unresolved", "int"),
    Figure("obligations_accounted", "Every payment accounted for", "bool"),
    Figure("charges", "Charges made", "int"),
    Figure("duplicate_charges_absorbed", "Repeat charges absorbed by the operation id", "int"),
    Figure("events", "Events simulated", "int"),
    *latency_figures(
        (
            ("before", _("before the trigger")),
            ("during", _("during the trigger")),
            ("after", _("after the trigger")),
            ("last_30s", _("in the last 30 s")),
        ),
        calls=True,
    ),
    Figure("drain_backlog", "Backlog when recovery starts", "int", "requests"),
    Figure("drain_net_rps", "Net useful capacity at recovery", "float", "req/s"),
    Figure("drain_estimate_s", "Drain estimate", "float", "s", nullable=True),
    Figure("actual_drain_s", "Actual drain time", "float", "s", nullable=True),
    Figure("drain_estimate_held", "Drain estimate held", "bool"),
    Figure("drain_gap", "Why estimate and actual differ", "str", "", nullable=True),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.trapped_cost
