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

from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext

from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.text import num, plain
from labs.words.drain_gaps import gap_words
from labs.words.recovery_controls import control_words, controls_on

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

# A step's verdict is a key that the JSON export and the page's styles keep in English;
# `VERDICT_WORDS` says it in the reader's language.
WORKED, FAILED, NOT_REACHED = "worked", "did not work", "not reached"
VERDICT_WORDS = {
    WORKED: gettext_noop("worked"),
    FAILED: gettext_noop("did not work"),
    NOT_REACHED: gettext_noop("not reached"),
}
STEP_TEXTS = (
    (
        "stop-amplification",
        gettext_noop("Stop the amplification"),
        gettext_noop(
            "Cap the retries (a shared retry budget) and the work let in, so that timed-out "
            "callers stop multiplying the load."
        ),
    ),
    (
        "drop-expired",
        gettext_noop("Drop expired reads"),
        gettext_noop(
            "A worker throws away a read whose caller has already given up, instead of doing "
            "it for nobody."
        ),
    ),
    (
        "reconcile-payments",
        gettext_noop("Reconcile payments, never drop them"),
        gettext_noop(
            "A timed-out payment may already have moved money. Hand it to the reconciliation "
            "owner by its operation id; never delete it to make the queue look short."
        ),
    ),
    (
        "admit-below-capacity",
        gettext_noop("Admit less than the safe useful capacity"),
        gettext_noop(
            "Let in fewer requests a second than the workers can finish usefully, so the "
            "difference drains the queue."
        ),
    ),
    (
        "reopen",
        gettext_noop("Reopen gradually"),
        gettext_noop(
            "Once the queue is short, raise the admission limit step by step to full "
            "capacity, and check the service stays healthy."
        ),
    ),
)
TEXTS = {key: (title, action) for key, title, action in STEP_TEXTS}

# The controls that carry out each step. A step lists which of them the after run tried
# and which it did not: a step can work without its own control (the others were enough).
STEP_CONTROLS = {
    "stop-amplification": ("limit_retries", "admission_limit"),
    "drop-expired": ("drop_expired", "reserve_share"),
    "reconcile-payments": ("reconcile_payments",),
    "admit-below-capacity": ("admission_limit",),
    "reopen": ("admission_limit", "gradual_reopen"),
}
# A control that was off, in words (its words when on come from `control_words`).
UNTRIED_WORDS = {
    "admission_limit": gettext_lazy("an admission limit"),
    "limit_retries": gettext_lazy("a retry budget"),
    "drop_expired": gettext_lazy("dropping expired reads"),
    "reconcile_payments": gettext_lazy("reconciling timed-out payments"),
    "reserve_share": gettext_lazy("keeping workers for fresh work"),
    "gradual_reopen": gettext_lazy("raising the admission limit step by step"),
}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _r(value: float, places: int = 1) -> float:
    return round(value, places)


def _pct(share: float) -> str:
    return f"{num(round(100 * share))}%"


def _sec(value: float) -> str:
    return f"{num(value)} s"


def _rate(value: float) -> str:
    return f"{num(value)}/s"


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


def _step(
    key: str,
    controls: list[str],
    verdict: str,
    figure: str,
    before: str,
    not_tried: list[str] | None = None,
) -> dict:
    """One step of the procedure: what to do, the controls tried and not tried, the verdict
    and its figure."""
    title, action = TEXTS[key]
    return {
        "key": key,
        "title": gettext(title),
        "action": gettext(action),
        "controls": controls,
        "not_tried": not_tried or [],
        "verdict": verdict,
        "verdict_text": gettext(VERDICT_WORDS[verdict]),
        "figure": figure,
        "before": before,
    }


def untried(key: str, params: Mapping[str, Any]) -> list[str]:
    """The controls of step `key` that the run with `params` left off, in words."""
    tried = {name for name, value in params.items() if value and name in UNTRIED_WORDS}
    if params.get("admission_limit") and params.get("reopen_ramp_s"):
        tried.add("gradual_reopen")
    return [str(UNTRIED_WORDS[name]) for name in STEP_CONTROLS[key] if name not in tried]


def tried_and_not(step: dict[str, Any]) -> str:
    """What the step tried and did not, in one sentence for the page and the Markdown."""
    parts = []
    if step["controls"]:
        parts.append(gettext("Tried: %(controls)s.") % {"controls": ", ".join(step["controls"])})
    if step["not_tried"]:
        parts.append(
            gettext("Not tried: %(controls)s.") % {"controls": ", ".join(step["not_tried"])}
        )
    if not step["controls"] and step["verdict"] == WORKED:
        parts.append(gettext("It worked without a control of its own: the others were enough."))
    return " ".join(parts)


def steps(
    b: Mapping[str, Any], a: Mapping[str, Any], after_params: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The five steps of the procedure, each judged on the after run's measurements."""
    at = _sec(a["recover_at_s"])
    words = control_words(after_params)
    if not a["seconds_after"]:
        # recover_at_s = horizon_s: no second is left to measure any control in.
        never = gettext("The controls never went on.")
        return [_step(key, [], NOT_REACHED, never, "") | {"tried_text": ""} for key in TEXTS]

    def on(*names: str) -> list[str]:
        return [words[name] for name in names if name in words]

    out = []

    ok = a["retries_per_new_after"] <= a["retry_allowance"]
    out.append(
        _step(
            "stop-amplification",
            on("limit_retries", "admission_limit"),
            WORKED if ok else FAILED,
            gettext(
                "After %(at)s: %(retries)s retries per new request. The spare capacity "
                "(%(capacity)s for %(new)s of new requests) can carry at most %(allowance)s."
            )
            % {
                "at": at,
                "retries": num(a["retries_per_new_after"]),
                "capacity": _rate(a["capacity_rps"]),
                "new": _rate(a["new_rps_after"]),
                "allowance": num(a["retry_allowance"]),
            },
            gettext("%(retries)s retries per new request")
            % {"retries": num(b["retries_per_new_after"])},
        )
    )

    ok = a["wasted_share_after"] <= MAX_WASTED_SHARE
    out.append(
        _step(
            "drop-expired",
            on("drop_expired", "reserve_share"),
            WORKED if ok else FAILED,
            ngettext(
                "After %(at)s: %(wasted)s of completions went to callers who had gone (the "
                "target is at most %(target)s); %(n)s expired item was dropped unserved.",
                "After %(at)s: %(wasted)s of completions went to callers who had gone (the "
                "target is at most %(target)s); %(n)s expired items were dropped unserved.",
                a["expired_dropped_after"],
            )
            % {
                "at": at,
                "wasted": _pct(a["wasted_share_after"]),
                "target": _pct(MAX_WASTED_SHARE),
                "n": num(a["expired_dropped_after"]),
            },
            gettext("%(wasted)s of completions wasted, %(n)s dropped")
            % {"wasted": _pct(b["wasted_share_after"]), "n": num(b["expired_dropped_after"])},
        )
    )

    ok = a["payments_lost"] == 0 and a["payments_unknown"] == 0
    out.append(
        _step(
            "reconcile-payments",
            on("reconcile_payments", "drop_payments"),
            WORKED if ok else FAILED,
            gettext(
                "At the end: %(lost)s payments lost, %(unknown)s unknown with no owner, "
                "%(reconciled)s reconciled, %(reconciling)s still being reconciled (of "
                "%(total)s)."
            )
            % {
                "lost": num(a["payments_lost"]),
                "unknown": num(a["payments_unknown"]),
                "reconciled": num(a["payments_reconciled"]),
                "reconciling": num(a["payments_reconciling"]),
                "total": num(a["payments_total"]),
            },
            gettext("%(lost)s lost, %(unknown)s unknown, %(reconciled)s reconciled")
            % {
                "lost": num(b["payments_lost"]),
                "unknown": num(b["payments_unknown"]),
                "reconciled": num(b["payments_reconciled"]),
            },
        )
    )

    ok = a["admitted_rps_first"] < a["safe_capacity_rps"]
    spare = a["safe_capacity_rps"] - a["admitted_rps_first"]
    first = {
        "window": _sec(FIRST_WINDOW_S),
        "at": at,
        "admitted": num(a["admitted_rps_first"]),
        "safe": _rate(a["safe_capacity_rps"]),
        "share": _pct(a["useful_share_first"]),
        "capacity": _rate(a["capacity_rps"]),
        "spare": _rate(_r(abs(spare))),
    }
    if ok:
        figure = gettext(
            "In the first %(window)s after %(at)s: %(admitted)s requests/s let in; safe useful "
            "capacity %(safe)s (%(share)s of %(capacity)s went to waiting callers), so "
            "%(spare)s was left to drain the queue."
        )
    else:
        figure = gettext(
            "In the first %(window)s after %(at)s: %(admitted)s requests/s let in; safe useful "
            "capacity %(safe)s (%(share)s of %(capacity)s went to waiting callers), so the "
            "queue could not shrink (%(spare)s too many)."
        )
    out.append(
        _step(
            "admit-below-capacity",
            on("admission_limit"),
            WORKED if ok else FAILED,
            figure % first,
            gettext("%(admitted)s let in, safe capacity %(safe)s")
            % {"admitted": _rate(b["admitted_rps_first"]), "safe": _rate(b["safe_capacity_rps"])},
        )
    )

    out.append(_reopen_step(b, a, on("admission_limit")))
    for step in out:
        step["not_tried"] = untried(step["key"], after_params)
        step["tried_text"] = tried_and_not(step)
    return out


def _reopen_step(b: Mapping[str, Any], a: Mapping[str, Any], controls: list[str]) -> dict[str, Any]:
    if b["drained_at_s"] is None:
        before = gettext("never drained")
    else:
        before = gettext("drained at %(t)s, last %(window)s %(useful)s useful") % {
            "t": _sec(b["drained_at_s"]),
            "window": _sec(LAST_WINDOW_S),
            "useful": _rate(b["useful_last_rps"]),
        }
    if a["drained_at_s"] is None:
        return _step(
            "reopen",
            controls,
            NOT_REACHED,
            gettext("The queue never drained, so there was nothing to reopen."),
            before,
        )
    limits = a["reopen_limits_rps"]
    if limits["first_rps"] is None:
        how = gettext(
            "no admission limit was on, so every request was let in as it came: a gradual "
            "reopen was not tried"
        )
    elif limits["open_at_s"] is None:
        how = gettext("the limit started at %(first)s and was still rising at the end") % {
            "first": _rate(limits["first_rps"])
        }
    else:
        how = gettext("the limit rose from %(first)s to no limit at %(t)s") % {
            "first": _rate(limits["first_rps"]),
            "t": _sec(limits["open_at_s"]),
        }
    ok = a["recovered"] and a["goodput_recovered"]
    return _step(
        "reopen",
        controls,
        WORKED if ok else FAILED,
        gettext(
            "The queue drained at %(drained)s; %(how)s. In the last %(window)s: %(useful)s "
            "useful answers/s for %(new)s new requests/s; the oldest request at the end had "
            "waited %(age)s."
        )
        % {
            "drained": _sec(a["drained_at_s"]),
            "how": how,
            "window": _sec(LAST_WINDOW_S),
            "useful": num(a["useful_last_rps"]),
            "new": num(a["new_last_rps"]),
            "age": _sec(a["final_oldest_age_s"]),
        },
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
        "gap": gap_words(result),
        "oldest_age_at_start_s": m["oldest_age_at_recover_s"],
        "healthy_from_s": m["healthy_from_s"],
    }


def run_params(result: Mapping[str, Any]) -> dict[str, Any]:
    """The params as the run went. A live run's controls may have been switched from the
    operator panel: its result keeps them (and when the first went on) apart from the form's."""
    params = result.get("tables", {}).get("effective_params") or result["params"]
    return in_form_order(params, result.get("lab", LAB))


def _lab(slug: str) -> Lab:
    """One of the capstone's labs (a report is only made of their runs)."""
    lab = get_lab(slug)
    if lab is None:
        raise ValueError(f"lab {slug!r} is not in the catalogue")
    return lab


def in_form_order(params: Mapping[str, Any], lab: str = LAB) -> dict[str, Any]:
    """The params in the order the lab's form lists them. A run's params come back from the
    database in the database's order (PostgreSQL's jsonb sorts keys by length), and a report
    should read the same whichever database the site runs on."""
    order = list(_lab(lab).defaults())
    known = {name: params[name] for name in order if name in params}
    return known | {name: value for name, value in params.items() if name not in known}


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
    defaults = _lab(lab).defaults()
    changes = [
        f"--set {name}={plain(value)}"
        for name, value in in_form_order(params, lab).items()
        if defaults.get(name) != value
    ]
    return " ".join(["python manage.py lab run", lab, f"--seed {seed}", *changes])


COMPARED = (
    # (measure, what a student reads, how to show it)
    ("recovered", gettext_noop("Recovered"), "yes/no"),
    ("recovered_at_s", gettext_noop("Recovered at"), "s"),
    ("final_backlog", gettext_noop("Backlog at the end"), "n"),
    ("final_oldest_age_s", gettext_noop("Oldest request at the end had waited"), "s"),
    ("useful_last_rps", gettext_noop("Useful answers, last 30 s"), "/s"),
    ("new_last_rps", gettext_noop("New requests, last 30 s"), "/s"),
    ("retries_per_new_after", gettext_noop("Retries per new request after the controls"), "n"),
    ("wasted_share_after", gettext_noop("Completions wasted after the controls"), "%"),
    ("payments_lost", gettext_noop("Payments lost"), "n"),
    ("payments_unknown", gettext_noop("Payments unknown (no owner)"), "n"),
    ("payments_reconciled", gettext_noop("Payments reconciled"), "n"),
)


def show(value: Any, how: str) -> str:
    """A measured value as the report prints it, in the reader's language."""
    if how == "yes/no":
        return gettext("yes") if value else gettext("no")
    if value is None:
        return gettext("never")
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
                "key": key,
                "figure": gettext(label),
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
        "simulated": _simulated(facts, lab),
        "timelines": {
            side: {
                "second": run["result"]["series"]["second"],
                **{name: run["result"]["series"][name] for name in TIMELINES},
            }
            for side, run in (("before", before), ("after", after))
        },
    }


def _outcome(a: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    at = _sec(a["recover_at_s"])
    lost = a["payments_lost"]
    rec = a["recovered_at_s"]
    if not a["seconds_after"]:
        return gettext(
            "The controls never went on: they were set to start at the end of the run (%(at)s)."
        ) % {"at": at}
    if lost == 0:
        payments = gettext("no payment was lost")
    else:
        payments = ngettext("%(n)s payment was lost", "%(n)s payments were lost", lost) % {
            "n": num(lost)
        }
    if rec is not None and (rec < a["recover_at_s"] or not controls_on(params)):
        return gettext("The service recovered by itself at %(t)s, and %(payments)s.") % {
            "t": _sec(rec),
            "payments": payments,
        }
    if rec is not None:
        return gettext(
            "After the controls went on at %(at)s the service recovered at %(t)s and %(payments)s."
        ) % {"at": at, "t": _sec(rec), "payments": payments}
    return gettext(
        "After %(at)s the service did not recover: the queue was %(n)s deep at %(end)s, and "
        "%(payments)s."
    ) % {
        "at": at,
        "n": num(a["final_backlog"]),
        "end": _sec(params["horizon_s"]),
        "payments": payments,
    }


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


def _simulated(facts: Mapping[str, Any], lab: str = LAB) -> list[str]:
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
    if lab != LAB:
        # trapped-live: the same scenario with real parts, switched from a schedule or a panel
        return [
            gettext(
                "Both runs played the scenario live on a real Redis: the callers and their "
                "retries, the request queue, the workers and the payments ledger were real "
                "parts, slowed down by the run's time scale. No real payment was made."
            ),
            seed_line,
            gettext(
                "A control went on when the schedule (“Controls start at”) or the operator panel "
                "switched it; the report measures from the first one, and each run's timeline "
                "shows every switch."
            ),
        ]
    return [
        gettext(
            "Everything is simulated in one process: the callers and their retries, the "
            "queue, the workers, the payment provider and the reconciliation owner. No real "
            "network, database or payment was used."
        ),
        seed_line,
        gettext(
            "Every recovery control starts at the second set in “Controls start at”; the other "
            "settings hold from the start."
        ),
    ]
