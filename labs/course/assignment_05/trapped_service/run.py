"""Assignment 05's main lab: a spike ends, the service stays stuck, and the controls that free it.

The params come from the model's own specs (`LAB_PARAM_SPECS["trapped_service"]`); this
module only lays them out under the form's headings and gives each a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure, latency_figures
from labs.interface.lab_runner import LabRunner
from labs.interface.params import params_from_specs
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.capstone_rules import trapped_errors, with_limits
from labs.runners.common import model_errors
from labs.sim.capstone import LAB_PARAM_SPECS, trapped_service
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.sim.capstone.trapped_params import TrappedParams
from labs.text import capfirst, gettext, gettext_noop, listed, ngettext, num
from labs.words.drain_gaps import gap_reasons, gap_words
from labs.words.recovery_controls import controls_on

# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread("amplification", "second", "backlog", y_label=gettext_noop("backlog"))
DEFAULT_SEED = CAPSTONE_SEED  # the seed the assignment's figures come from
TIME_LIMIT_S = 60

CONTROLS_GROUP = gettext_noop("Recovery controls")
LAYOUT = (
    (
        gettext_noop("Workload"),
        (
            ("horizon_s", gettext_noop("Simulated time")),
            ("base_rps", gettext_noop("Normal new requests per second")),
            ("payment_share", gettext_noop("Share of requests that are payments")),
            ("cost_spread", gettext_noop("Cost spread of jobs")),
        ),
    ),
    (
        gettext_noop("Service"),
        (
            ("workers", gettext_noop("Workers")),
            ("service_ms", gettext_noop("Time for one request")),
            ("service_dist", gettext_noop("Spread of that time")),
            ("queue_limit", gettext_noop("Queue size limit")),
            ("discipline", gettext_noop("Which request a worker takes next")),
        ),
    ),
    (
        gettext_noop("Clients"),
        (
            ("client_timeout_ms", gettext_noop("Caller's timeout for one attempt")),
            ("max_attempts", gettext_noop("Attempts per call")),
            ("retry_layers", gettext_noop("Layers that retry")),
            ("backoff_base_ms", gettext_noop("First backoff")),
            ("backoff_cap_ms", gettext_noop("Longest backoff")),
            ("jitter", gettext_noop("Jitter")),
        ),
    ),
    (
        gettext_noop("Trigger"),
        (
            ("trigger_start_s", gettext_noop("Trigger starts at")),
            ("trigger_end_s", gettext_noop("Trigger ends at")),
            ("spike_rps", gettext_noop("New requests per second during the trigger")),
            ("slowdown_factor", gettext_noop("Service slowdown during the trigger")),
            ("workers_lost", gettext_noop("Workers lost during the trigger")),
        ),
    ),
    (
        CONTROLS_GROUP,
        (
            ("recover_at_s", gettext_noop("Controls start at")),
            ("admission_limit", gettext_noop("Admission limit")),
            ("admit_rps", gettext_noop("Admit at most (per second)")),
            ("reopen_ramp_s", gettext_noop("Reopen gradually over")),
            ("limit_retries", gettext_noop("Retry budget")),
            ("retry_budget", gettext_noop("Retries per new request")),
            ("drop_expired", gettext_noop("Drop expired reads")),
            ("drop_cost_ms", gettext_noop("Time to drop one expired item")),
            ("drop_payments", gettext_noop("Drop expired payments too (naive)")),
            ("reconcile_payments", gettext_noop("Reconcile timed-out payments")),
            ("reconcile_delay_s", gettext_noop("Reconciliation delay")),
            ("reserve_share", gettext_noop("Workers kept for fresh requests")),
        ),
    ),
)
PARAMS = with_limits(
    params_from_specs(LAB_PARAM_SPECS["trapped_service"], LAYOUT), "trapped_service"
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The model's cross-field rules (trigger inside the run, not both drop and reconcile...)."""
    return trapped_errors(params) or model_errors(TrappedParams, params)


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
        extra.append(
            gettext("every request took %(n)s× as long") % {"n": num(p["slowdown_factor"])}
        )
    if p["workers_lost"]:
        extra.append(
            gettext("%(lost)s of %(all)s workers were missing")
            % {"lost": p["workers_lost"], "all": p["workers"]}
        )
    spike = not extra and p["spike_rps"] > p["base_rps"]
    ran = {
        "start": _s(start),
        "end": _s(end),
        "rate": num(p["spike_rps"]),
        "capacity": _rate(s["capacity_rps"]),
        "base": _rate(p["base_rps"]),
        "extra": listed(extra, gettext("and")),
    }
    if spike:
        first = gettext(
            "The spike ran from %(start)s to %(end)s: %(rate)s new requests/s against a "
            "capacity of %(capacity)s (normal load %(base)s)."
        )
    elif not extra:
        # No more requests, no slower service, no worker lost: the trigger changed nothing.
        first = gettext(
            "The trigger ran from %(start)s to %(end)s but changed nothing: %(rate)s new "
            "requests/s against a capacity of %(capacity)s (normal load %(base)s)."
        )
    else:
        first = gettext(
            "The trigger ran from %(start)s to %(end)s: %(rate)s new requests/s against a "
            "capacity of %(capacity)s (normal load %(base)s); %(extra)s."
        )
    lines = [first % ran]
    on = controls_on(p)
    rec = s["recovered_at_s"]
    lost = s["obligations_lost"]
    by_itself = rec is not None and (not on or rec < at)
    if rec is None and end >= p["horizon_s"]:
        lines.append(
            gettext(
                "The trigger lasted to the end of the run, so there was no time after it to see "
                "whether the service recovers: at %(horizon)s the queue held %(n)s requests. "
                "Make the run longer."
            )
            % {"horizon": _s(p["horizon_s"]), "n": num(s["final_backlog"])}
        )
    elif rec is None:
        trapped = (
            gettext(
                "The spike ended at %(end)s but the queue was still %(n)s deep at %(horizon)s, "
                "and its oldest request had waited %(age)s: the service stayed trapped."
            )
            if spike
            else gettext(
                "The trigger ended at %(end)s but the queue was still %(n)s deep at %(horizon)s, "
                "and its oldest request had waited %(age)s: the service stayed trapped."
            )
        )
        lines.append(
            trapped
            % {
                "end": _s(end),
                "n": num(s["final_backlog"]),
                "horizon": _s(p["horizon_s"]),
                "age": _s(s["final_oldest_age_s"]),
            }
        )
    elif by_itself:
        by_itself_words = (
            gettext("It recovered by itself at %(t)s, %(after)s after the spike ended.")
            if spike
            else gettext("It recovered by itself at %(t)s, %(after)s after the trigger ended.")
        )
        lines.append(by_itself_words % {"t": _s(rec), "after": _s(rec - end)})
    elif lost == 0:
        lines.append(
            gettext(
                "With the controls on from %(at)s it recovered at %(t)s and no payment was lost."
            )
            % {"at": _s(at), "t": _s(rec)}
        )
    else:
        lines.append(
            gettext(
                "With the controls on from %(at)s it recovered at %(t)s and %(lost)s payments "
                "were lost."
            )
            % {"at": _s(at), "t": _s(rec), "lost": num(lost)}
        )
    lines.append(_retry_layers(p))
    lines.append(
        ngettext(
            "Useful answers: %(before)s before, %(after)s after, %(last)s in the last 30 s. Each "
            "new request took %(n)s attempt on average, and over the whole run %(wasted)s%% of "
            "the workers' time went to callers who had already gone.",
            "Useful answers: %(before)s before, %(after)s after, %(last)s in the last 30 s. Each "
            "new request took %(n)s attempts on average, and over the whole run %(wasted)s%% of "
            "the workers' time went to callers who had already gone.",
            1 if s["amplification"] == 1 else 2,
        )
        % {
            "before": _rate(s["goodput_before_rps"]),
            "after": _rate(s["goodput_after_rps"]),
            "last": _rate(s["goodput_last_30s_rps"]),
            "n": num(s["amplification"]),
            "wasted": num(round(100 * s["wasted_share"])),
        }
    )
    if on:
        lines.append(gettext("Controls on: %(on)s.") % {"on": listed(on, gettext("and"))})
    else:
        lines.append(gettext("Controls on: none."))
    lines.append(_payments(s))
    if not by_itself:
        lines.append(_drain(result, at))
    return lines


def _retry_layers(p: Mapping[str, Any]) -> str:
    """How many attempts one call could make: every retrying layer multiplies them."""
    attempts, layers = p["max_attempts"], p["retry_layers"]
    if layers == 1:
        return ngettext(
            "Only one layer retried: one call made at most %(n)s attempt.",
            "Only one layer retried: one call made at most %(n)s attempts.",
            attempts,
        ) % {"n": attempts}
    return gettext(
        "%(layers)s layers each retried: one call could make %(product)s = %(cap)s attempts."
    ) % {
        "layers": layers,
        "product": " × ".join([str(attempts)] * layers),
        "cap": num(attempts**layers),
    }


PAYMENT_STATES = (
    ("confirmed", gettext_noop("%(n)s confirmed")),
    ("reconciled", gettext_noop("%(n)s reconciled later")),
    ("failed", gettext_noop("%(n)s refused (the caller was told)")),
    ("pending", gettext_noop("%(n)s still pending")),
    ("reconciling", gettext_noop("%(n)s being reconciled")),
    ("unknown", gettext_noop("%(n)s unknown (nobody in charge)")),
    ("lost", gettext_noop("%(n)s lost without a record")),
)


def _payments(s: Mapping[str, Any]) -> str:
    parts = [
        gettext(words) % {"n": num(s["obligations_" + state])}
        for state, words in PAYMENT_STATES
        if s["obligations_" + state]
    ]
    total = {"n": num(s["obligations_total"]), "parts": listed(parts, gettext("and"))}
    if parts:
        return gettext("Payments: %(n)s in all: %(parts)s.") % total
    return gettext("Payments: %(n)s in all.") % total


def _drain(result: Mapping[str, Any], at: float) -> str:
    s = result["summary"]
    if any(r["why"] == "no-estimate" for r in gap_reasons(result) or ()):
        # No control went on: nothing was measured at recovery, so there is no estimate.
        return gettext(
            "No control went on during the run, so there was no drain estimate to check."
        )
    est, actual = s["drain_estimate_s"], s["actual_drain_s"]
    net = s["drain_net_rps"]
    if net > 0:
        rate = gettext("%(n)s/s of spare capacity") % {"n": num(net)}
    else:
        rate = gettext("%(n)s/s more arriving than the workers could finish") % {
            "n": num(round(-net, 1))
        }
    words = {"at": _s(at), "n": num(s["drain_backlog"]), "rate": rate}
    start = gettext("At %(at)s the queue held %(n)s requests and %(rate)s") % words
    said_here: tuple[str, ...] = ()
    never = actual is None and any(r["why"] == "never-drained" for r in gap_reasons(result) or ())
    if never:
        said_here = ("never-drained",)  # said once, here, not again in the reasons' brackets
    if est is None and never:
        # The estimate and the outcome agree: one clause, not "never drain; it never drained".
        rest = gettext(
            "The estimate said it would never drain, and it did not: admitted work stayed at "
            "or above useful capacity"
        )
    else:
        if est is None:
            guess = gettext("the estimate said it would never drain")
        else:
            guess = gettext("the estimate said it would drain in %(t)s") % {"t": _s(est)}
        if never:
            outcome = gettext(
                "it never drained, as admitted work stayed at or above useful capacity"
            )
        elif actual is None:
            outcome = gettext("it did not drain")
        else:
            outcome = gettext("it drained in %(t)s") % {"t": _s(actual)}
        rest = gettext("%(guess)s; %(outcome)s") % {"guess": capfirst(guess), "outcome": outcome}
    gap = gap_words(result, leave_out=said_here)
    why = f" ({gap})" if gap else ""
    # Two sentences: where the queue stood, then what the estimate said and what happened.
    return gettext("%(start)s. %(rest)s%(why)s.") % {"start": start, "rest": rest, "why": why}


FIGURES = (
    Figure("recovered", gettext_noop("Recovered"), "bool"),
    Figure(
        "recovered_at_s",
        gettext_noop("Second it recovered"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("peak_backlog", gettext_noop("Peak backlog"), "int", gettext_noop("requests")),
    Figure("final_backlog", gettext_noop("Backlog at the end"), "int", gettext_noop("requests")),
    Figure(
        "final_oldest_age_s",
        gettext_noop("Age of the oldest request at the end"),
        "float",
        gettext_noop("s"),
    ),
    Figure("capacity_rps", gettext_noop("Capacity"), "float", gettext_noop("req/s")),
    Figure(
        "goodput_before_rps",
        gettext_noop("Useful answers before the trigger"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "goodput_during_rps",
        gettext_noop("Useful answers during the trigger"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "goodput_after_rps",
        gettext_noop("Useful answers after the trigger"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "goodput_last_30s_rps",
        gettext_noop("Useful answers in the last 30 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure("goodput_recovered", gettext_noop("Useful answers back to normal"), "bool"),
    Figure("original_requests", gettext_noop("Original requests"), "int"),
    Figure("retries", gettext_noop("Retries"), "int"),
    Figure("amplification", gettext_noop("Attempts per original request"), "float"),
    Figure("rejected", gettext_noop("Rejected at once (429/503)"), "int"),
    Figure("expired_dropped", gettext_noop("Expired requests dropped"), "int"),
    Figure("wasted_completions", gettext_noop("Answers nobody waited for"), "int"),
    Figure("useful_completions", gettext_noop("Answers someone waited for"), "int"),
    Figure("wasted_share", gettext_noop("Share of work wasted"), "float"),
    Figure("obligations_total", gettext_noop("Payments"), "int"),
    Figure("obligations_pending", gettext_noop("Payments still pending"), "int"),
    Figure("obligations_unknown", gettext_noop("Payments in an unknown state"), "int"),
    Figure("obligations_reconciling", gettext_noop("Payments being reconciled"), "int"),
    Figure("obligations_confirmed", gettext_noop("Payments confirmed"), "int"),
    Figure("obligations_reconciled", gettext_noop("Payments reconciled"), "int"),
    Figure("obligations_failed", gettext_noop("Payments explicitly failed"), "int"),
    Figure("obligations_lost", gettext_noop("Payments lost"), "int"),
    Figure("obligations_unresolved", gettext_noop("Payments unresolved"), "int"),
    Figure("obligations_accounted", gettext_noop("Every payment accounted for"), "bool"),
    Figure("charges", gettext_noop("Charges made"), "int"),
    Figure(
        "duplicate_charges_absorbed",
        gettext_noop("Repeat charges absorbed by the operation id"),
        "int",
    ),
    Figure("events", gettext_noop("Events simulated"), "int"),
    *latency_figures(
        (
            ("before", gettext_noop("before the trigger")),
            ("during", gettext_noop("during the trigger")),
            ("after", gettext_noop("after the trigger")),
            ("last_30s", gettext_noop("in the last 30 s")),
        ),
        calls=True,
    ),
    Figure(
        "drain_backlog",
        gettext_noop("Backlog when recovery starts"),
        "int",
        gettext_noop("requests"),
    ),
    Figure(
        "drain_net_rps",
        gettext_noop("Net useful capacity at recovery"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "drain_estimate_s",
        gettext_noop("Drain estimate"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "actual_drain_s",
        gettext_noop("Actual drain time"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("drain_estimate_held", gettext_noop("Drain estimate held"), "bool"),
    Figure("drain_gap", gettext_noop("Why estimate and actual differ"), "str", "", nullable=True),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.trapped_cost


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
    time_limit_s=TIME_LIMIT_S,
    spread=SPREAD,
)
