"""Assignment 05: a connection pool that traps the service after the database is fast
again, and the control that frees it, switched on at a moment the student chooses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, bounded
from labs.interface.progress import Progress
from labs.sim.pool_trap import PoolSecond, Rules, recovered_at, simulate
from labs.text import gettext, gettext_noop, num

# Offered attempts (calls a second x seconds x attempts per call) a run may simulate:
# about a second of worker time for the two runs together.
MAX_ATTEMPTS = 60_000

SERVICE, SLOW, CALLERS, CONTROL = (
    gettext_noop("The service"),
    gettext_noop("The slow spell"),
    gettext_noop("The callers"),
    gettext_noop("The control"),
)
CONTROLS = (
    ("none", gettext_noop("None: leave it as it is")),
    ("short_wait", gettext_noop("Wait for a connection less than the caller's timeout")),
    ("no_retries", gettext_noop("Stop retrying")),
    ("bulkhead", gettext_noop("A bulkhead: refuse at once when too many wait")),
)
CONTROL_WORDS = {
    "none": gettext_noop("no control"),
    "short_wait": gettext_noop("the shorter wait for a connection"),
    "no_retries": gettext_noop("no retries"),
    "bulkhead": gettext_noop("the bulkhead"),
}


PARAMS = (
    bounded(
        "rate_per_s",
        gettext_noop("New calls a second"),
        "int",
        150,
        gettext_noop("Evenly spaced."),
        1,
        1_000,
        SERVICE,
    ),
    bounded(
        "pool_size",
        gettext_noop("Connections in the pool"),
        "int",
        10,
        gettext_noop("One per query."),
        1,
        500,
        SERVICE,
    ),
    bounded(
        "query_ms",
        gettext_noop("Time one query holds a connection"),
        "float",
        50.0,
        gettext_noop("When the database is well."),
        1,
        10_000,
        SERVICE,
        "ms",
    ),
    bounded(
        "pool_wait_ms",
        gettext_noop("Longest wait for a connection"),
        "float",
        30_000.0,
        gettext_noop("Then the pool says busy (30 s by default in HikariCP and SQLAlchemy)."),
        1,
        120_000,
        SERVICE,
        "ms",
    ),
    bounded(
        "horizon_s",
        gettext_noop("Seconds to watch"),
        "int",
        60,
        gettext_noop("The length of the timeline."),
        10,
        300,
        SERVICE,
        "s",
    ),
    bounded(
        "slow_query_ms",
        gettext_noop("Time one query takes while the database is slow"),
        "float",
        500.0,
        gettext_noop("The trigger: a lock, a slow plan, a busy disk."),
        1,
        60_000,
        SLOW,
        "ms",
    ),
    bounded(
        "slow_from_s",
        gettext_noop("Database slow from"),
        "int",
        10,
        gettext_noop("A second of the timeline."),
        0,
        300,
        SLOW,
        "s",
    ),
    bounded(
        "slow_until_s",
        gettext_noop("Database well again at"),
        "int",
        20,
        gettext_noop("A second of the timeline."),
        0,
        300,
        SLOW,
        "s",
    ),
    bounded(
        "client_timeout_ms",
        gettext_noop("Caller's timeout"),
        "float",
        1000.0,
        gettext_noop("The caller stops waiting for an attempt after this."),
        10,
        60_000,
        CALLERS,
        "ms",
    ),
    bounded(
        "retries",
        gettext_noop("Retries per call"),
        "int",
        3,
        gettext_noop("After the first attempt."),
        0,
        10,
        CALLERS,
    ),
    bounded(
        "backoff_ms",
        gettext_noop("Wait before a retry"),
        "float",
        100.0,
        gettext_noop("The same every time."),
        0,
        10_000,
        CALLERS,
        "ms",
    ),
    Param(
        "control",
        gettext_noop("Control"),
        "choice",
        "short_wait",
        gettext_noop("What changes at the moment below."),
        choices=CONTROLS,
        group=CONTROL,
    ),
    bounded(
        "switch_at_s",
        gettext_noop("Switch it on at"),
        "int",
        40,
        gettext_noop("0: from the start."),
        0,
        300,
        CONTROL,
        "s",
    ),
    bounded(
        "short_wait_ms",
        gettext_noop("The shorter wait for a connection"),
        "float",
        500.0,
        gettext_noop("For the first control: keep it under the caller's timeout."),
        1,
        120_000,
        CONTROL,
        "ms",
    ),
    bounded(
        "bulkhead_waiters",
        gettext_noop("Most requests allowed to wait (bulkhead)"),
        "int",
        20,
        gettext_noop("For the bulkhead: the rest are refused at once."),
        1,
        100_000,
        CONTROL,
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    if params["slow_until_s"] < params["slow_from_s"]:
        errors["slow_until_s"] = gettext("The database must be well again after it got slow.")
    attempts = params["rate_per_s"] * params["horizon_s"] * (params["retries"] + 1)
    if attempts > MAX_ATTEMPTS:
        errors["rate_per_s"] = gettext(
            "Too much to simulate: calls a second × seconds × attempts per call must be at "
            "most %(most)s (now %(now)s). Lower one of them."
        ) % {"most": num(MAX_ATTEMPTS), "now": num(attempts)}
    return errors


def rules(params: Mapping[str, Any]) -> tuple[Rules, Rules]:
    """The rules before the switch, and after it with the chosen control."""
    before = Rules(params["pool_wait_ms"], params["retries"], 0)
    after = {
        "none": before,
        "short_wait": before._replace(pool_wait_ms=params["short_wait_ms"]),
        "no_retries": before._replace(retries=0),
        "bulkhead": before._replace(max_waiters=params["bulkhead_waiters"]),
    }[params["control"]]
    return before, after


def _play(params: Mapping[str, Any], after: Rules) -> list[PoolSecond]:
    before, _after = rules(params)
    return simulate(
        rate_per_s=params["rate_per_s"],
        horizon_s=params["horizon_s"],
        pool_size=params["pool_size"],
        query_ms=params["query_ms"],
        slow_query_ms=params["slow_query_ms"],
        slow_from_s=params["slow_from_s"],
        slow_until_s=params["slow_until_s"],
        client_timeout_ms=params["client_timeout_ms"],
        backoff_ms=params["backoff_ms"],
        before=before,
        after=after,
        switch_at_s=params["switch_at_s"],
    )


def _after_slow(rows: list[PoolSecond], params: Mapping[str, Any]) -> list[PoolSecond]:
    return rows[min(params["slow_until_s"], len(rows) - 1) :]


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The same timeline without a control and with the chosen one; no randomness."""
    before, after = rules(params)
    plain = _play(params, before)
    progress.update(1, 2)
    controlled = _play(params, after)
    progress.update(2, 2)
    tail = _after_slow(plain, params)
    useful, wasted = sum(r.useful for r in tail), sum(r.wasted for r in tail)
    new = sum(r.new_calls for r in tail)
    summary = {
        "capacity_per_s": round(params["pool_size"] * 1000 / params["query_ms"], 1),
        "slow_capacity_per_s": round(params["pool_size"] * 1000 / params["slow_query_ms"], 1),
        "plain_recovered_at_s": recovered_at(plain, params["slow_until_s"]),
        "plain_useful_per_s_after_slow": round(useful / len(tail), 1),
        "plain_wasted_pct_after_slow": round(100 * wasted / (useful + wasted), 1)
        if useful + wasted
        else 0.0,
        "plain_attempts_per_call_after_slow": round(
            sum(r.new_calls + r.retries for r in tail) / new, 2
        )
        if new
        else 0.0,
        "plain_peak_waiting": max(r.waiting for r in plain),
        "control_recovered_at_s": recovered_at(controlled, params["slow_until_s"]),
        "control_calls_failed": sum(r.gave_up for r in controlled),
        "control_peak_waiting_after_switch": max(
            (r.waiting for r in controlled[params["switch_at_s"] :]), default=0
        ),
    }
    series: dict[str, list[Any]] = {"second": [r.second for r in plain]}
    for name, rows in (("plain", plain), ("control", controlled)):
        for field in ("new_calls", "retries", "useful", "wasted", "pool_timeouts", "rejected"):
            series[f"{name}_{field}"] = [getattr(r, field) for r in rows]
        series[f"{name}_waiting"] = [r.waiting for r in rows]
        series[f"{name}_oldest_wait_s"] = [r.oldest_wait_s for r in rows]
    return {"summary": summary, "series": series, "tables": {}}


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "capacity": num(s["capacity_per_s"]),
        "slow": num(s["slow_capacity_per_s"]),
        "from": num(p["slow_from_s"]),
        "until": num(p["slow_until_s"]),
        "waiting": num(s["plain_peak_waiting"]),
        "wasted": num(s["plain_wasted_pct_after_slow"]),
        "attempts": num(s["plain_attempts_per_call_after_slow"]),
        "useful": num(s["plain_useful_per_s_after_slow"]),
        "control": gettext(CONTROL_WORDS[p["control"]]),
        "at": num(p["switch_at_s"]),
        "recovered": num(s["control_recovered_at_s"] or 0),
        "plain_recovered": num(s["plain_recovered_at_s"] or 0),
        "seconds": num(p["horizon_s"]),
    }
    lines = [
        gettext(
            "The pool answers %(capacity)s queries a second, but only %(slow)s while the "
            "database is slow (seconds %(from)s to %(until)s)."
        )
        % values
    ]
    if s["plain_recovered_at_s"] is None:
        lines.append(
            gettext(
                "Without a control the database is well again at second %(until)s, yet the "
                "service stays trapped: up to %(waiting)s requests wait for a connection, "
                "%(wasted)s%% of the queries answer callers who have left, each call sends "
                "%(attempts)s attempts, and callers get %(useful)s answers a second."
            )
            % values
        )
    else:
        lines.append(
            gettext(
                "Without a control, callers get their answers again from second "
                "%(plain_recovered)s."
            )
            % values
        )
    if p["control"] == "none":
        return lines
    if s["control_recovered_at_s"] is None:
        lines.append(
            gettext(
                "With %(control)s from second %(at)s, callers are still not answered after "
                "%(seconds)s s."
            )
            % values
        )
    else:
        lines.append(
            gettext(
                "With %(control)s from second %(at)s, callers get their answers again from "
                "second %(recovered)s."
            )
            % values
        )
    return lines


FIGURES = (
    Figure(
        "capacity_per_s",
        gettext_noop("Queries a second the pool can run"),
        "float",
        gettext_noop("queries/s"),
    ),
    Figure(
        "slow_capacity_per_s",
        gettext_noop("Queries a second the pool can run while the database is slow"),
        "float",
        gettext_noop("queries/s"),
    ),
    Figure(
        "plain_recovered_at_s",
        gettext_noop("Second callers were answered again, without a control"),
        "int",
        "s",
        nullable=True,
    ),
    Figure(
        "plain_useful_per_s_after_slow",
        gettext_noop("Answers a second after the slow spell, without a control"),
        "float",
    ),
    Figure(
        "plain_wasted_pct_after_slow",
        gettext_noop("Queries for callers who had left, after the slow spell, without a control"),
        "float",
        "%",
    ),
    Figure(
        "plain_attempts_per_call_after_slow",
        gettext_noop("Attempts per call after the slow spell, without a control"),
        "float",
    ),
    Figure(
        "plain_peak_waiting",
        gettext_noop("Most requests waiting for a connection, without a control"),
        "int",
    ),
    Figure(
        "control_recovered_at_s",
        gettext_noop("Second callers were answered again, with the control"),
        "int",
        "s",
        nullable=True,
    ),
    Figure("control_calls_failed", gettext_noop("Calls that failed, with the control"), "int"),
    Figure(
        "control_peak_waiting_after_switch",
        gettext_noop("Most requests waiting for a connection after the switch"),
        "int",
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
