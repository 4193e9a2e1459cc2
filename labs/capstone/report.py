"""The before/after report of Assignment 05: two runs of the trapped service, one procedure.

`build(before, after)` reads two saved results and writes the recovery procedure from
what they measured: each step (stop amplification, drop expired reads, reconcile
payments, admit below safe useful capacity, reopen gradually) gets the figure that
shows whether it worked, the drain estimate is set against the actual drain, and the
params and seeds say what was simulated. Nothing here is taken from the switches alone:
a control that was on but did not help gets "did not work".

The report is a plain JSON-ready dict, so the page, the Markdown export
(`labs.capstone.markdown`) and the JSON export all show the same figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext

from labs.capstone.controls import control_words, controls_on
from labs.catalogue.entries import get_lab
from labs.text import num, plain

LAB = "trapped-service"
# The labs whose runs the report, the operator view and the picker read: the model and
# the same service run live on Redis (its result carries the model's figures).
LABS = (LAB, "trapped-live")
FIRST_WINDOW_S = 30  # "the first 30 s of the controls": long enough to see the drain begin
LAST_WINDOW_S = 30  # the model's goodput check looks at the last 30 s too
MAX_WASTED_SHARE = 0.10  # at most 1 completion in 10 may go to a caller who has gone
TIMELINES = (
    "arrivals",
    "retries",
    "admitted",
    "useful",
    "wasted",
    "backlog",
    "oldest_age_s",
    "admit_limit_rps",
    "payments_unknown",
    "payments_lost",
    "payments_reconciled",
)

WORKED, FAILED, NOT_REACHED = "worked", "did not work", "not reached"
STEP_TEXTS = (
    (
        "stop-amplification",
        "Stop the amplification",
        "Cap the retries (a shared retry budget) and the work let in, so that timed-out "
        "callers stop multiplying the load.",
    ),
    (
        "drop-expired",
        "Drop expired reads",
        "A worker throws away a read whose caller has already given up, instead of doing it "
        "for nobody.",
    ),
    (
        "reconcile-payments",
        "Reconcile payments, never drop them",
        "A timed-out payment may already have moved money. Hand it to the reconciliation "
        "owner by its operation id; never delete it to make the queue look short.",
    ),
    (
        "admit-below-capacity",
        "Admit less than the safe useful capacity",
        "Let in fewer requests a second than the workers can finish usefully, so the "
        "difference drains the queue.",
    ),
    (
        "reopen",
        "Reopen gradually",
        "Once the queue is short, raise the admission limit step by step to full capacity, "
        "and check the service stays healthy.",
    ),
)
TEXTS = {key: (title, action) for key, title, action in STEP_TEXTS}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _r(value: float, places: int = 1) -> float:
    return round(value, places)


def _pct(share: float) -> str:
    return f"{num(round(100 * share))}%"


def measure(result: Mapping[str, Any]) -> dict[str, Any]:
    """The figures the procedure is judged on, from one run's series and summary."""
    s, p, summary = result["series"], run_params(result), result["summary"]
    end = len(s["second"])
    at = min(int(p["recover_at_s"]), end)
    after = slice(at, end)
    first = slice(at, min(end, at + FIRST_WINDOW_S))
    last = slice(max(0, end - LAST_WINDOW_S), end)
    capacity = summary["capacity_rps"]

    new_rps = _mean(s["arrivals"][after])
    useful_first = sum(s["useful"][first])
    done_first = useful_first + sum(s["wasted"][first])
    # Capacity counts only if its work reaches a caller who still waits for it.
    useful_share_first = _share(useful_first, done_first) if done_first else 1.0
    drained_at = None if summary["actual_drain_s"] is None else _r(at + summary["actual_drain_s"])
    half_timeout_s = p["client_timeout_ms"] / 2000
    healthy_from = next((i for i in range(at, end) if s["oldest_age_s"][i] <= half_timeout_s), None)
    return {
        "recover_at_s": at,
        "seconds_after": end - at,
        "capacity_rps": capacity,
        "new_rps_after": _r(new_rps),
        "retries_per_new_after": _r(_share(sum(s["retries"][after]), sum(s["arrivals"][after])), 2),
        # Retries the spare capacity could carry for each new request.
        "retry_allowance": _r(max(0.0, _share(capacity - new_rps, new_rps)), 2),
        "wasted_share_after": _r(
            _share(sum(s["wasted"][after]), sum(s["wasted"][after]) + sum(s["useful"][after])), 3
        ),
        "expired_dropped_after": sum(s["expired_dropped"][after]),
        "admitted_rps_first": _r(_mean(s["admitted"][first])),
        "useful_share_first": _r(useful_share_first, 3),
        "safe_capacity_rps": _r(capacity * useful_share_first),
        "oldest_age_at_recover_s": s["oldest_age_s"][at - 1] if at else 0.0,
        "healthy_from_s": healthy_from,
        "drained_at_s": drained_at,
        "reopen_limits_rps": _reopen(s["admit_limit_rps"], drained_at, end),
        "useful_last_rps": _r(_mean(s["useful"][last])),
        "new_last_rps": _r(_mean(s["arrivals"][last])),
        "recovered": summary["recovered"],
        "recovered_at_s": summary["recovered_at_s"],
        "goodput_recovered": summary["goodput_recovered"],
        "final_backlog": summary["final_backlog"],
        "final_oldest_age_s": summary["final_oldest_age_s"],
        "payments_total": summary["obligations_total"],
        "payments_lost": summary["obligations_lost"],
        "payments_unknown": summary["obligations_unknown"],
        "payments_reconciled": summary["obligations_reconciled"],
        "payments_reconciling": summary["obligations_reconciling"],
        "payments_pending": summary["obligations_pending"],
    }


def _reopen(limits: Sequence[float], drained_at: float | None, end: int) -> dict[str, Any]:
    """How the admission limit moved once the queue had drained (0 means no limit)."""
    if drained_at is None:
        return {"first_rps": None, "open_at_s": None}
    start = min(int(drained_at), end)
    seen = [v for v in limits[start:] if v]
    open_at = next((i for i in range(start, end) if not limits[i]), None)
    return {"first_rps": seen[0] if seen else None, "open_at_s": open_at}


def _step(key: str, controls: list[str], verdict: str, figure: str, before: str) -> dict:
    """One step of the procedure: what to do, the controls used, the verdict and its figure."""
    title, action = TEXTS[key]
    return {
        "key": key,
        "title": title,
        "action": action,
        "controls": controls,
        "verdict": verdict,
        "figure": figure,
        "before": before,
    }


def steps(
    b: Mapping[str, Any], a: Mapping[str, Any], after_params: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The five steps of the procedure, each judged on the after run's measurements."""
    at = f"{num(a['recover_at_s'])} s"
    words = control_words(after_params)
    if not a["seconds_after"]:
        # recover_at_s = horizon_s: no second is left to measure any control in.
        return [_step(key, [], NOT_REACHED, "The controls never went on.", "") for key in TEXTS]

    def on(*names: str) -> list[str]:
        return [words[name] for name in names if name in words]

    out = []

    ok = a["retries_per_new_after"] <= a["retry_allowance"]
    out.append(
        _step(
            "stop-amplification",
            on("limit_retries", "admission_limit"),
            WORKED if ok else FAILED,
            f"After {at}: {num(a['retries_per_new_after'])} retries per new request. The spare "
            f"capacity ({num(a['capacity_rps'])}/s for {num(a['new_rps_after'])}/s of new "
            f"requests) can carry at most {num(a['retry_allowance'])}.",
            f"{num(b['retries_per_new_after'])} retries per new request",
        )
    )

    ok = a["wasted_share_after"] <= MAX_WASTED_SHARE
    out.append(
        _step(
            "drop-expired",
            on("drop_expired", "reserve_share"),
            WORKED if ok else FAILED,
            f"After {at}: {_pct(a['wasted_share_after'])} of completions went to callers who had "
            f"gone (the target is at most {_pct(MAX_WASTED_SHARE)}); "
            f"{num(a['expired_dropped_after'])} expired items were dropped unserved.",
            f"{_pct(b['wasted_share_after'])} of completions wasted, "
            f"{num(b['expired_dropped_after'])} dropped",
        )
    )

    ok = a["payments_lost"] == 0 and a["payments_unknown"] == 0
    out.append(
        _step(
            "reconcile-payments",
            on("reconcile_payments", "drop_payments"),
            WORKED if ok else FAILED,
            f"At the end: {num(a['payments_lost'])} payments lost, {num(a['payments_unknown'])} "
            f"unknown with no owner, {num(a['payments_reconciled'])} reconciled, "
            f"{num(a['payments_reconciling'])} still being reconciled "
            f"(of {num(a['payments_total'])}).",
            f"{num(b['payments_lost'])} lost, {num(b['payments_unknown'])} unknown, "
            f"{num(b['payments_reconciled'])} reconciled",
        )
    )

    ok = a["admitted_rps_first"] < a["safe_capacity_rps"]
    spare = a["safe_capacity_rps"] - a["admitted_rps_first"]
    out.append(
        _step(
            "admit-below-capacity",
            on("admission_limit"),
            WORKED if ok else FAILED,
            f"In the first {FIRST_WINDOW_S} s after {at}: {num(a['admitted_rps_first'])} "
            f"requests/s let in; safe useful capacity {num(a['safe_capacity_rps'])}/s "
            f"({_pct(a['useful_share_first'])} of {num(a['capacity_rps'])}/s went to waiting "
            f"callers), so "
            + (
                f"{num(_r(spare))}/s was left to drain the queue."
                if ok
                else f"the queue could not shrink ({num(_r(-spare))}/s too many)."
            ),
            f"{num(b['admitted_rps_first'])}/s let in, "
            f"safe capacity {num(b['safe_capacity_rps'])}/s",
        )
    )

    out.append(_reopen_step(b, a, on("admission_limit")))
    return out


def _reopen_step(b: Mapping[str, Any], a: Mapping[str, Any], controls: list[str]) -> dict[str, Any]:
    before = (
        "never drained"
        if b["drained_at_s"] is None
        else f"drained at {num(b['drained_at_s'])} s, "
        f"last 30 s {num(b['useful_last_rps'])}/s useful"
    )
    if a["drained_at_s"] is None:
        return _step(
            "reopen",
            controls,
            NOT_REACHED,
            "The queue never drained, so there was nothing to reopen.",
            before,
        )
    limits = a["reopen_limits_rps"]
    if limits["first_rps"] is None:
        how = "it reopened at once (no admission limit was holding)"
    elif limits["open_at_s"] is None:
        how = f"the limit started at {num(limits['first_rps'])}/s and was still rising at the end"
    else:
        how = (
            f"the limit rose from {num(limits['first_rps'])}/s to no limit at "
            f"{num(limits['open_at_s'])} s"
        )
    ok = a["recovered"] and a["goodput_recovered"]
    return _step(
        "reopen",
        controls,
        WORKED if ok else FAILED,
        f"The queue drained at {num(a['drained_at_s'])} s; {how}. In the last "
        f"{LAST_WINDOW_S} s: {num(a['useful_last_rps'])} useful answers/s for "
        f"{num(a['new_last_rps'])} new requests/s; the oldest request at the end had waited "
        f"{num(a['final_oldest_age_s'])} s.",
        before,
    )


def _drain(result: Mapping[str, Any], m: Mapping[str, Any]) -> dict[str, Any]:
    s = result["summary"]
    return {
        "at_s": m["recover_at_s"],
        "backlog": s["drain_backlog"],
        "net_rps": s["drain_net_rps"],
        "estimate_s": s["drain_estimate_s"],
        "actual_s": s["actual_drain_s"],
        "held": s["drain_estimate_held"],
        "gap": s["drain_gap"],
        "oldest_age_at_start_s": m["oldest_age_at_recover_s"],
        "healthy_from_s": m["healthy_from_s"],
    }


def run_params(result: Mapping[str, Any]) -> dict[str, Any]:
    """The params as the run went. A live run's controls may have been switched from the
    operator panel: its result keeps them (and when the first went on) apart from the form's."""
    return result.get("tables", {}).get("effective_params") or result["params"]


def _run_facts(run: Mapping[str, Any]) -> dict[str, Any]:
    result = run["result"]
    params = run_params(result)
    return {
        "id": run["id"],
        "owner": run["owner"],
        "seed": result["seed"],
        "params": params,
        "controls_on": controls_on(params),
        "command": command(result["params"], result["seed"], result.get("lab", LAB)),
    }


def command(params: Mapping[str, Any], seed: int, lab: str = LAB) -> str:
    """The command line that repeats a run: only the params that differ from the defaults."""
    defaults = get_lab(lab).defaults()
    changes = [
        f"--set {name}={plain(value)}"
        for name, value in params.items()
        if defaults.get(name) != value
    ]
    return " ".join(["python manage.py lab run", lab, f"--seed {seed}", *changes])


COMPARED = (
    # (measure, what a student reads, how to show it)
    ("recovered", "Recovered", "yes/no"),
    ("recovered_at_s", "Recovered at", "s"),
    ("final_backlog", "Backlog at the end", "n"),
    ("final_oldest_age_s", "Oldest request at the end had waited", "s"),
    ("useful_last_rps", "Useful answers, last 30 s", "/s"),
    ("new_last_rps", "New requests, last 30 s", "/s"),
    ("retries_per_new_after", "Retries per new request after the controls", "n"),
    ("wasted_share_after", "Completions wasted after the controls", "%"),
    ("payments_lost", "Payments lost", "n"),
    ("payments_unknown", "Payments unknown (no owner)", "n"),
    ("payments_reconciled", "Payments reconciled", "n"),
)


def show(value: Any, how: str) -> str:
    """A measured value as the report prints it."""
    if how == "yes/no":
        return "yes" if value else "no"
    if value is None:
        return "never"
    if how == "%":
        return f"{num(round(100 * value, 1))}%"
    suffix = {"s": " s", "/s": "/s"}.get(how, "")
    return f"{num(value)}{suffix}"


def build(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The report for two runs, each `{"id", "owner", "result"}` with a trapped-service result."""
    for run in (before, after):
        if run["result"].get("lab") not in LABS:
            raise ValueError(f"run {run['id']} is not a {' or '.join(LABS)} run")
    lab = before["result"]["lab"]
    if after["result"]["lab"] != lab:
        raise ValueError(f"runs {before['id']} and {after['id']} are not of the same lab")
    b, a = measure(before["result"]), measure(after["result"])
    facts = {"before": _run_facts(before), "after": _run_facts(after)}
    bp, ap = facts["before"]["params"], facts["after"]["params"]
    params = [
        {"name": name, "before": bp.get(name), "after": ap.get(name)}
        for name in dict.fromkeys([*bp, *ap])
    ]
    changed = [row for row in params if row["before"] != row["after"]]
    procedure = steps(b, a, ap)
    return {
        "lab": lab,
        "runs": facts,
        "same_seed": facts["before"]["seed"] == facts["after"]["seed"],
        "params": params,
        "changed_params": changed,
        "outcome": _outcome(a, ap),
        "compared": [
            {
                "figure": label,
                "before": b[key],
                "after": a[key],
                "before_text": show(b[key], how),
                "after_text": show(a[key], how),
            }
            for key, label, how in COMPARED
        ],
        "procedure": procedure,
        "worked": sum(step["verdict"] == WORKED for step in procedure),
        "drain": {
            "before": _drain(before["result"], b),
            "after": _drain(after["result"], a),
        },
        "measures": {"before": b, "after": a},
        "simulated": _simulated(facts),
        "timelines": {
            side: {
                "second": run["result"]["series"]["second"],
                **{name: run["result"]["series"][name] for name in TIMELINES},
            }
            for side, run in (("before", before), ("after", after))
        },
    }


def _outcome(a: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    at = num(a["recover_at_s"])
    lost = a["payments_lost"]
    payments = "no payment was lost" if lost == 0 else f"{num(lost)} payments were lost"
    rec = a["recovered_at_s"]
    if not a["seconds_after"]:
        return f"The controls never went on: recover_at_s is the end of the run ({at} s)."
    if rec is not None and (rec < a["recover_at_s"] or not controls_on(params)):
        return f"The service recovered by itself at {num(rec)} s, and {payments}."
    if rec is not None:
        return (
            f"After the controls went on at {at} s the service recovered at {num(rec)} s "
            f"and {payments}."
        )
    return (
        f"After {at} s the service did not recover: the queue was {num(a['final_backlog'])} "
        f"deep at {num(params['horizon_s'])} s, and {payments}."
    )


# What decides who calls and when: with these equal and one seed, the model's arrivals
# stream gives both runs exactly the same callers (labs/sim/capstone/streams.py).
LOAD_PARAMS = (
    "horizon_s",
    "base_rps",
    "spike_rps",
    "trigger_start_s",
    "trigger_end_s",
    "payment_share",
    "cost_spread",
)


def _simulated(facts: Mapping[str, Any]) -> list[str]:
    seeds = {facts[side]["seed"] for side in ("before", "after")}
    same_load = all(
        facts["before"]["params"].get(name) == facts["after"]["params"].get(name)
        for name in LOAD_PARAMS
    )
    if len(seeds) != 1:
        seed_line = gettext(
            "The runs used different seeds, so their random arrivals differ as well."
        )
    elif same_load:
        seed_line = gettext(
            "Both runs used seed %(seed)s and the same load: the same callers arrived at the "
            "same moments, whatever the controls did."
        ) % {"seed": seeds.pop()}
    else:
        seed_line = gettext(
            "Both runs used seed %(seed)s, but their load differs (new requests, trigger, "
            "payments or job cost), so different callers arrived."
        ) % {"seed": seeds.pop()}
    return [
        "Everything is simulated in one process: the callers and their retries, the queue, "
        "the workers, the payment provider and the reconciliation owner. No real network, "
        "database or payment was used.",
        seed_line,
        "Every recovery control starts at recover_at_s; the other params hold from the start.",
    ]
