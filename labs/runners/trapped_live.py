"""Assignment 05 on a real Redis: the trapped service, run live, rescued from the operator panel.

The params are the model's (`LAB_PARAM_SPECS["trapped_service"]`) with the live defaults
and caps of `labs.experiments.trapped.params`, plus the time scale. The result carries the
model's figures, so the capstone's report, operator view and gradebook read it as they read
a simulated run, and the model's prediction for the same params beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param, params_from_specs
from labs.experiments.limits import MAX_MESSAGES
from labs.experiments.trapped import LIVE_DEFAULTS, trapped_live
from labs.experiments.trapped import params as live
from labs.runners import trapped_service as model_runner
from labs.runners.common import model_errors, table
from labs.runners.experiment import FOOTER_FIGURES, experiment_context, run_footer, wall_cost
from labs.runs.progress import Progress
from labs.sim.capstone import LAB_PARAM_SPECS
from labs.sim.capstone.cost import Cost
from labs.sim.capstone.params import TrappedParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import num

KIND = "experiment"
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED
# The run stops itself at 100 s of wall time at most (labs.experiments.trapped.params).
TIME_LIMIT_S = 115

# Every request costs the same and the queue is FIFO here: those two model params stay out.
NOT_LIVE = ("cost_spread", "discipline")
LIVE_MAX = {"workers": live.MAX_WORKERS, "queue_limit": live.MAX_QUEUE_LIMIT, "horizon_s": 1000}
TIME_SCALE = Param(
    "time_scale", "One model second lasts", "float", live.DEFAULT_TIME_SCALE,
    "Wall time of one simulated second. 0.25: the 300 s run takes 75 s, and every rate "
    "on the queue is four times the model's.",
    min=live.MIN_TIME_SCALE, max=live.MAX_TIME_SCALE, group="Workload", unit="s",
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
PARAMS = (TIME_SCALE, *params_from_specs(_specs(), LAYOUT))

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
    errors = model_errors(TrappedParams, model)
    if errors:
        return errors
    p = TrappedParams(**model)
    scale = params["time_scale"]
    wall_s = p.horizon_s * scale
    if wall_s > live.MAX_WALL_S:
        return {
            "time_scale": f"{num(p.horizon_s)} simulated seconds at {num(scale)} s each take "
            f"{num(round(wall_s))} s; a live run may take at most {num(live.MAX_WALL_S)} s. "
            "Shorten the run or the time scale."
        }
    top = max(p.base_rps, p.spike_rps) / scale
    if top > live.MAX_NEW_PER_WALL_S:
        return {
            "spike_rps": f"At this time scale that is {num(round(top))} new requests a second "
            f"of real time; the shared Redis takes at most {num(live.MAX_NEW_PER_WALL_S)}. "
            "Lower the rate or raise the time scale."
        }
    capacity = p.capacity_rps / scale
    if capacity > live.MAX_CAPACITY_PER_WALL_S:
        return {
            "workers": f"These workers would finish {num(round(capacity))} requests a second "
            f"of real time; the shared Redis takes at most {num(live.MAX_CAPACITY_PER_WALL_S)}. "
            "Use fewer workers, a longer service time or a larger time scale."
        }
    if p.service_ms * scale < live.MIN_SERVICE_WALL_MS:
        return {
            "service_ms": f"One request would take {num(round(p.service_ms * scale, 2))} ms of "
            f"real time; a worker thread cannot be timed below {num(live.MIN_SERVICE_WALL_MS)} "
            "ms. Lengthen it or raise the time scale."
        }
    if p.client_timeout_ms * scale < live.MIN_TIMEOUT_WALL_MS:
        return {
            "client_timeout_ms": "The timeout would last "
            f"{num(round(p.client_timeout_ms * scale, 2))} ms of real time; keep it at least "
            f"{num(live.MIN_TIMEOUT_WALL_MS)} ms. Lengthen it or raise the time scale."
        }
    if p.expected_requests > MAX_MESSAGES:
        return {
            "horizon_s": f"About {num(round(p.expected_requests))} new requests would arrive; "
            f"a live run takes at most {num(MAX_MESSAGES)}. Shorten the run or lower "
            "the rates."
        }
    return {}


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the scenario live on the real Redis; the operator may switch controls meanwhile."""
    model = {k: v for k, v in params.items() if k != "time_scale"}
    result = trapped_live(
        seed,
        time_scale=params["time_scale"],
        **model,
        # One sample a model second, taken by the experiment itself; no DLQ to keep.
        context=experiment_context(progress, LIVE_KEYS, keep=False, sample_interval_s=None),
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
                "Every control switched, when, by whom, and how long it took to act",
                ["second", "control", "by", "applied after", "first worker step after"],
                [
                    [
                        e["t_s"],
                        e["label"],
                        e["source"],
                        "" if e["latency_ms"] is None else f"{e['latency_ms']} ms",
                        "" if e["effect_ms"] is None else f"{e['effect_ms']} ms",
                    ]
                    for e in timeline
                ],
            ),
            "timeline_data": timeline,
            "effective_params": effective_params(params, s, timeline),
        },
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
        f"Live on the real Redis: one simulated second lasted {num(p['time_scale'])} s, so "
        f"{num(p['horizon_s'])} simulated seconds took {num(round(s['wall_s']))} s."
    ]
    effective = result["tables"].get("effective_params", p)
    lines += model_runner.headline({**result, "params": effective})
    switched = [e for e in result["tables"].get("timeline_data", []) if e["source"] == "operator"]
    if switched:
        worst = max(e["latency_ms"] for e in switched)
        lines.append(
            f"The operator switched {len(switched)} control(s) from the panel, the first at "
            f"{num(switched[0]['t_s'])} s; each acted within {num(worst)} ms."
        )
    model = "recovered" if s["model_recovered"] else "stayed trapped"
    lines.append(
        f"The model, given the same params, {model}: peak backlog "
        f"{num(s['model_peak_backlog'])} (live {num(s['peak_backlog'])}), "
        f"{num(s['model_amplification'])} attempts per request (live {num(s['amplification'])})."
    )
    if s["stopped_early"]:
        lines.append(f"The run stopped early ({s['stop_reason']}).")
    return lines


FIGURES = (
    *(f for f in model_runner.FIGURES if f.name != "events"),
    Figure("events", "Attempts sent", "int"),
    Figure("time_scale", "Wall time of one simulated second", "float", "s"),
    Figure("recover_at_s", "Second the first control went on", "float", "s", nullable=True),
    Figure("latency_p50_ms", "Median wait of answered requests", "float", "ms", nullable=True),
    Figure("latency_p99_ms", "99th percentile wait of answered requests", "float", "ms",
           nullable=True),
    Figure("controls_switched", "Controls switched", "int"),
    Figure("control_latency_ms_p95", "Command to applied, 95th percentile", "float", "ms",
           nullable=True),
    Figure("control_latency_ms_max", "Command to applied, slowest", "int", "ms", nullable=True),
    Figure("model_recovered", "The model recovered", "bool"),
    Figure("model_recovered_at_s", "Second the model recovered", "float", "s", nullable=True),
    Figure("model_peak_backlog", "Peak backlog in the model", "int", "requests"),
    Figure("model_goodput_after_rps", "Useful answers after the trigger in the model", "float",
           "req/s"),
    Figure("model_amplification", "Attempts per original request in the model", "float"),
    Figure("model_obligations_lost", "Payments lost in the model", "int"),
    *FOOTER_FIGURES,
)  # fmt: skip


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: the simulated horizon played at the time scale (the run ends there)."""
    horizon_s = params.get("horizon_s", LIVE_DEFAULTS["horizon_s"])
    return wall_cost(horizon_s * params["time_scale"], ("horizon_s", "time_scale"))
