"""Assignment 05 on a real Redis: the trapped service, run live, rescued from the operator panel.

The params are the model's (`LAB_PARAM_SPECS["trapped_service"]`) with the live defaults
and caps of `labs.experiments.trapped.scaled_params`, plus the time scale. The result carries the
model's figures, so the capstone's report, operator view and gradebook read it as they read
a simulated run, and the model's prediction for the same params beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.course.assignment_05.trapped_service import run as model_runner
from labs.experiments.limits import MAX_MESSAGES
from labs.experiments.trapped import LIVE_DEFAULTS, trapped_live
from labs.experiments.trapped import scaled_params as live
from labs.experiments.trapped.controls import CONTROLS, switch_phrase
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, params_from_specs
from labs.interface.progress import Progress
from labs.runners.capstone_rules import trapped_errors, with_limits
from labs.runners.common import model_errors, table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone import LAB_PARAM_SPECS
from labs.sim.capstone.cost import Cost
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.sim.capstone.trapped_params import TrappedParams
from labs.text import gettext, gettext_noop, ngettext, num

USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED
# The run stops itself at 100 s of wall time at most (labs.experiments.trapped.scaled_params).
TIME_LIMIT_S = 115

# Every request costs the same and the queue is FIFO here: those two model params stay out.
NOT_LIVE = ("cost_spread", "discipline")
LIVE_MAX = {"workers": live.MAX_WORKERS, "queue_limit": live.MAX_QUEUE_LIMIT, "horizon_s": 1000}
TIME_SCALE = Param(
    "time_scale", gettext_noop("One model second lasts"), "float", live.DEFAULT_TIME_SCALE,
    gettext_noop(
        "Wall time of one simulated second. 0.25: the 300 s run takes 75 s, and every rate "
        "on the queue is four times the model's."
    ),
    min=live.MIN_TIME_SCALE, max=live.MAX_TIME_SCALE, group=gettext_noop("Workload"), unit="s",
)  # fmt: skip


def _specs() -> list[dict[str, Any]]:
    specs = []
    for spec in LAB_PARAM_SPECS["trapped_service"]:
        if spec["name"] in NOT_LIVE:
            continue
        spec = dict(spec)
        spec["default"] = LIVE_DEFAULTS.get(spec["name"], spec["default"])
        if spec["name"] in LIVE_MAX:
            spec["max"] = LIVE_MAX[spec["name"]]
        specs.append(spec)
    return specs


LAYOUT = tuple(
    (group, tuple((name, label) for name, label in fields if name not in NOT_LIVE))
    for group, fields in model_runner.LAYOUT
)
PARAMS = (TIME_SCALE, *with_limits(params_from_specs(_specs(), LAYOUT), "trapped_service"))

LIVE_KEYS = (
    "t_s", "second", "arrivals", "retries", "admitted", "rejected", "completions", "useful",
    "wasted", "expired_dropped", "backlog", "queued", "oldest_age_s", "latency_p50_ms",
    "latency_p99_ms", "admit_limit_rps", "payments_unknown", "payments_lost",
    "payments_reconciling", "payments_reconciled", "switched",
    "ctl_admission_limit", "ctl_limit_retries", "ctl_drop_expired", "ctl_reconcile_payments",
    "ctl_drop_payments", "ctl_reserve", "ctl_reopen_ramp", "ctl_admit_rps", "ctl_retry_budget",
    "ctl_reserve_share", "ctl_reopen_ramp_s",
)  # fmt: skip


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The model's cross-field rules, then what one shared Redis and a wall clock allow."""
    model = {k: v for k, v in params.items() if k != "time_scale"}
    errors = trapped_errors(model) or model_errors(TrappedParams, model)
    if errors:
        return errors
    p = TrappedParams(**model)
    scale = params["time_scale"]
    wall_s = p.horizon_s * scale
    if wall_s > live.MAX_WALL_S:
        return {
            "time_scale": gettext(
                "%(horizon)s simulated seconds at %(scale)s s each take %(wall)s s; a live run "
                "may take at most %(most)s s. Shorten the run or the time scale."
            )
            % {
                "horizon": num(p.horizon_s),
                "scale": num(scale),
                "wall": num(round(wall_s)),
                "most": num(live.MAX_WALL_S),
            }
        }
    top = max(p.base_rps, p.spike_rps) / scale
    if top > live.MAX_NEW_PER_WALL_S:
        return {
            "spike_rps": gettext(
                "At this time scale that is %(rate)s new requests a second of real time; the "
                "shared Redis takes at most %(most)s. Lower the rate or raise the time scale."
            )
            % {"rate": num(round(top)), "most": num(live.MAX_NEW_PER_WALL_S)}
        }
    capacity = p.capacity_rps / scale
    if capacity > live.MAX_CAPACITY_PER_WALL_S:
        return {
            "workers": gettext(
                "These workers would finish %(rate)s requests a second of real time; the shared "
                "Redis takes at most %(most)s. Use fewer workers, a longer service time or a "
                "larger time scale."
            )
            % {"rate": num(round(capacity)), "most": num(live.MAX_CAPACITY_PER_WALL_S)}
        }
    if p.service_ms * scale < live.MIN_SERVICE_WALL_MS:
        return {
            "service_ms": gettext(
                "One request would take %(ms)s ms of real time; a worker thread cannot be timed "
                "below %(least)s ms. Lengthen it or raise the time scale."
            )
            % {"ms": num(round(p.service_ms * scale, 2)), "least": num(live.MIN_SERVICE_WALL_MS)}
        }
    if p.client_timeout_ms * scale < live.MIN_TIMEOUT_WALL_MS:
        return {
            "client_timeout_ms": gettext(
                "The timeout would last %(ms)s ms of real time; keep it at least %(least)s ms. "
                "Lengthen it or raise the time scale."
            )
            % {
                "ms": num(round(p.client_timeout_ms * scale, 2)),
                "least": num(live.MIN_TIMEOUT_WALL_MS),
            }
        }
    if p.expected_requests > MAX_MESSAGES:
        return {
            "horizon_s": gettext(
                "About %(n)s new requests would arrive; a live run takes at most %(most)s. "
                "Shorten the run or lower the rates."
            )
            % {"n": num(round(p.expected_requests)), "most": num(MAX_MESSAGES)}
        }
    return {}


def switch_words(sample: Mapping[str, Any]) -> dict[str, Any]:
    """The switches of a live sample as phrases, so the live chart labels them in words."""
    labels = [label for label in (sample.get("switched") or "").split("; ") if label]
    return {"switched_words": [switch_phrase(label) for label in labels]} if labels else {}


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the scenario live on the real Redis; the operator may switch controls meanwhile."""
    model = {k: v for k, v in params.items() if k != "time_scale"}
    result = trapped_live(
        seed,
        time_scale=params["time_scale"],
        **model,
        # One sample a model second, taken by the experiment itself; no DLQ to keep.
        context=experiment_context(
            progress, LIVE_KEYS, keep=False, sample_interval_s=None, words=switch_words
        ),
    )
    s = result["summary"]
    summary = {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s)
    timeline = result["tables"]["timeline"]
    return {
        "summary": summary,
        "series": result["series"],
        "tables": {
            "obligations": result["tables"]["obligations"],
            "drain_reasons": result["tables"]["drain_reasons"],
            "timeline": table(
                gettext_noop("Every control switched, when, by whom, and how long it took to act"),
                [
                    gettext_noop("second"),
                    gettext_noop("control"),
                    gettext_noop("by"),
                    gettext_noop("applied after"),
                    gettext_noop("first worker step after"),
                ],
                [
                    [
                        e["t_s"],
                        switch_phrase(e["label"]),
                        SOURCE_WORDS.get(e["source"], e["source"]),
                        "" if e["latency_ms"] is None else f"{e['latency_ms']} ms",
                        "" if e["effect_ms"] is None else f"{e['effect_ms']} ms",
                    ]
                    for e in timeline
                ],
            ),
            "timeline_data": [e | {"words": switch_phrase(e["label"])} for e in timeline],
            "effective_params": effective_params(params, s, timeline),
        },
    }


# Who switched a control, as the timeline's "by" column says it.
SOURCE_WORDS = {
    "operator": gettext_noop("the operator"),
    "schedule": gettext_noop("the schedule"),
    "ramp": gettext_noop("the reopen ramp"),
}

# Control name on the channel -> (the model's switch param, the model's value param).
SWITCHES = {
    "admission_limit": ("admission_limit", "admit_rps"),
    "retry_budget": ("limit_retries", "retry_budget"),
    "drop_expired": ("drop_expired", None),
    "reconcile_payments": ("reconcile_payments", None),
    "drop_payments": ("drop_payments", None),
    "reserve_share": ("reserve_share", "reserve_share"),
    "reopen_ramp": (None, "reopen_ramp_s"),
}


def effective_params(
    params: Mapping[str, Any], summary: Mapping[str, Any], timeline: list[dict[str, Any]]
) -> dict[str, Any]:
    """The params as the run really went: the controls switched on (from the panel or the
    schedule) and `recover_at_s` the second the first went on, so the headline, the charts
    and the before/after report describe what happened rather than what the form said."""
    out = dict(params)
    if summary["recover_at_s"] is None:
        return out
    out["recover_at_s"] = summary["recover_at_s"]
    for event in timeline:
        if event["source"] == "ramp" or event["control"] not in SWITCHES:
            continue
        switch, value = SWITCHES[event["control"]]
        if event["on"] and value and event["value"] is not None:
            out[value] = event["value"]
        if switch == "reserve_share":
            out["reserve_share"] = (out["reserve_share"] or 0.25) if event["on"] else 0.0
        elif switch and event["on"]:
            out[switch] = True
    if out["drop_payments"] and out["reconcile_payments"]:
        out["drop_payments"] = False  # reconciling won: switching it on turns naive dropping off
    return out


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    lines = [
        gettext(
            "Live on the real Redis: one simulated second lasted %(scale)s s, so %(horizon)s "
            "simulated seconds took %(wall)s s."
        )
        % {
            "scale": num(p["time_scale"]),
            "horizon": num(p["horizon_s"]),
            "wall": num(round(s["wall_s"])),
        }
    ]
    effective = result["tables"].get("effective_params", p)
    lines += model_runner.headline({**result, "params": effective})
    switched = [e for e in result["tables"].get("timeline_data", []) if e["source"] == "operator"]
    if switched:
        worst = max(e["latency_ms"] for e in switched)
        lines.append(
            ngettext(
                "The operator switched %(n)s control from the panel, at %(first)s s; it acted "
                "within %(worst)s ms.",
                "The operator switched %(n)s controls from the panel, the first at %(first)s s; "
                "each acted within %(worst)s ms.",
                len(switched),
            )
            % {"n": len(switched), "first": num(switched[0]["t_s"]), "worst": num(worst)}
        )
    model = (
        gettext(
            "The model, given the same params, recovered: peak backlog %(peak)s (live "
            "%(live_peak)s), %(attempts)s attempts per request (live %(live_attempts)s)."
        )
        if s["model_recovered"]
        else gettext(
            "The model, given the same params, stayed trapped: peak backlog %(peak)s (live "
            "%(live_peak)s), %(attempts)s attempts per request (live %(live_attempts)s)."
        )
    )
    lines.append(
        model
        % {
            "peak": num(s["model_peak_backlog"]),
            "live_peak": num(s["peak_backlog"]),
            "attempts": num(s["model_amplification"]),
            "live_attempts": num(s["amplification"]),
        }
    )
    return lines


FIGURES = (
    *(f for f in model_runner.FIGURES if f.name != "events"),
    Figure("events", gettext_noop("Attempts sent"), "int"),
    Figure("time_scale", gettext_noop("Wall time of one simulated second"), "float", "s"),
    Figure("recover_at_s", gettext_noop("Second the first control went on"), "float", "s",
           nullable=True),
    Figure("latency_p50_ms", gettext_noop("Median wait of answered requests"), "float", "ms",
           nullable=True),
    Figure("latency_p99_ms", gettext_noop("99th percentile wait of answered requests"), "float",
           "ms", nullable=True),
    Figure("controls_switched", gettext_noop("Controls switched"), "int"),
    Figure("control_latency_ms_p95", gettext_noop("Command to applied, 95th percentile"),
           "float", "ms", nullable=True),
    Figure("control_latency_ms_max", gettext_noop("Command to applied, slowest"), "int", "ms",
           nullable=True),
    Figure("model_recovered", gettext_noop("The model recovered"), "bool"),
    Figure("model_recovered_at_s", gettext_noop("Second the model recovered"), "float", "s",
           nullable=True),
    Figure("model_peak_backlog", gettext_noop("Peak backlog in the model"), "int",
           gettext_noop("requests")),
    Figure("model_goodput_after_rps", gettext_noop("Useful answers after the trigger in the model"),
           "float", "req/s"),
    Figure("model_amplification", gettext_noop("Attempts per original request in the model"),
           "float"),
    Figure("model_obligations_lost", gettext_noop("Payments lost in the model"), "int"),
    *FOOTER_FIGURES,
)  # fmt: skip


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: the simulated horizon played at the time scale (the run ends there)."""
    horizon_s = params.get("horizon_s", LIVE_DEFAULTS["horizon_s"])
    return wall_cost(horizon_s * params["time_scale"], ("horizon_s", "time_scale"))


# Where a live sample keeps each control: (switched on, its value, the run's param for it).
SAMPLE_KEYS = {
    "admission_limit": ("ctl_admission_limit", "ctl_admit_rps", "admit_rps"),
    "retry_budget": ("ctl_limit_retries", "ctl_retry_budget", "retry_budget"),
    "drop_expired": ("ctl_drop_expired", "", ""),
    "reconcile_payments": ("ctl_reconcile_payments", "", ""),
    "drop_payments": ("ctl_drop_payments", "", ""),
    "reserve_share": ("ctl_reserve", "ctl_reserve_share", "reserve_share"),
    "reopen_ramp": ("ctl_reopen_ramp", "ctl_reopen_ramp_s", "reopen_ramp_s"),
}


def switches_now(sample: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each operator control as the newest reading has it, in the reader's words:
    ("Admission limit", "on: 45 req/s"), ("Drop expired work", "off"); the live view
    shows them beside the panel that switches them."""
    shown = []
    for spec in CONTROLS:
        on_key, value_key, _param = SAMPLE_KEYS[spec.name]
        label = gettext(spec.label)
        if not sample.get(on_key):
            shown.append((label, gettext("off")))
            continue
        value = sample.get(value_key) if value_key else None
        if value is None:
            shown.append((label, gettext("on")))
            continue
        unit = f" {gettext(spec.unit)}" if spec.unit else ""
        words = gettext("on: %(value)s%(unit)s") % {"value": f"{value:g}", "unit": unit}
        shown.append((label, words))
    return shown


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    uses_seed=USES_SEED,
    default_seed=DEFAULT_SEED,
    cost=cost,
    time_limit_s=TIME_LIMIT_S,
)
