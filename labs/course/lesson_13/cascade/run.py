"""Lesson 13's thesis: one stuck dependency stalls a service until four tools work together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.common import outage_errors
from labs.sim.capstone.cost import Cost
from labs.sim.cascade import CascadeRun, CascadeSetup, play_cascade
from labs.text import gettext, gettext_noop, num

USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread(
    "usable_share_stall", "second", "ok", y_label=gettext_noop("full answers"), percent=True
)
# The most attempts one run may make (every request tried 1 + retries times): a couple of
# seconds of worker time at worst.
MAX_ATTEMPTS = 60_000
# Worst seconds of one core per attempt, both plays (the student's and the bare one)
# together, on the loaded 2-core reference machine: 0.3 s for both plays at the defaults,
# whose bound is 24,004 attempts (12.5 µs each), so 20 µs leaves room.
SECONDS_PER_ATTEMPT = 2.0e-5

TRAFFIC = gettext_noop("Traffic and the service")
STALL = gettext_noop("The stuck dependency")
CALLERS = gettext_noop("Callers")
TOOLS = gettext_noop("The four tools")

PARAMS = (
    Param(
        "rate_per_s",
        gettext_noop("New requests each second"),
        "int",
        100,
        gettext_noop("Parents opening a page of the service, every second."),
        min=1,
        max=300,
        group=TRAFFIC,
        unit=gettext_noop("req/s"),
    ),
    Param(
        "arrivals",
        gettext_noop("How the parents arrive"),
        "choice",
        "random",
        gettext_noop(
            "At random, as people do: some moments bunch up. Evenly spaced: one every "
            "1/rate of a second, so their retries are spread already and jitter has nothing "
            "to spread."
        ),
        choices=(
            ("random", gettext_noop("at random")),
            ("even", gettext_noop("evenly spaced")),
        ),
        group=TRAFFIC,
    ),
    Param(
        "threads",
        gettext_noop("Threads in the service"),
        "int",
        120,
        gettext_noop("Each request holds one thread until it is answered."),
        min=1,
        max=2_000,
        group=TRAFFIC,
    ),
    Param(
        "dependency_pct",
        gettext_noop("Pages that need the dependency"),
        "int",
        50,
        gettext_noop("The rest of the pages never call it, yet they need a free thread too."),
        min=0,
        max=100,
        group=TRAFFIC,
        unit="%",
    ),
    Param(
        "duration_s",
        gettext_noop("Seconds to watch"),
        "int",
        60,
        gettext_noop("How long callers keep sending requests."),
        min=5,
        max=120,
        group=STALL,
        unit=gettext_noop("s"),
    ),
    Param(
        "down_from_s",
        gettext_noop("Dependency stuck from"),
        "int",
        10,
        gettext_noop("The second the dependency stops answering normally."),
        min=0,
        max=120,
        group=STALL,
        unit=gettext_noop("s"),
    ),
    Param(
        "down_until_s",
        gettext_noop("Dependency healthy again at"),
        "int",
        40,
        gettext_noop("The first second it answers normally again."),
        min=0,
        max=120,
        group=STALL,
        unit=gettext_noop("s"),
    ),
    Param(
        "stall_kind",
        gettext_noop("How it fails"),
        "choice",
        "stuck",
        gettext_noop(
            "Stuck: a call hangs for 30 s before it errors. Down: a call is refused at once."
        ),
        choices=(
            ("stuck", gettext_noop("stuck (calls hang)")),
            ("down", gettext_noop("down (calls refused at once)")),
        ),
        group=STALL,
    ),
    Param(
        "caller_timeout_ms",
        gettext_noop("A caller waits at most"),
        "int",
        2_000,
        gettext_noop("After this long without an answer a caller gives up and may try again."),
        min=100,
        max=30_000,
        group=CALLERS,
        unit=gettext_noop("ms"),
    ),
    Param(
        "caller_retries",
        gettext_noop("Retries per request"),
        "int",
        3,
        gettext_noop("How many more times a caller tries after an error or giving up."),
        min=0,
        max=5,
        group=CALLERS,
    ),
    Param(
        "use_timeout",
        gettext_noop("1. Timeout on the call to the dependency"),
        "bool",
        False,
        gettext_noop("Ticked: the service stops waiting for the dependency after the time below."),
        group=TOOLS,
    ),
    Param(
        "dependency_timeout_ms",
        gettext_noop("Timeout"),
        "int",
        1_000,
        gettext_noop("Used only when the timeout is ticked."),
        min=10,
        max=30_000,
        group=TOOLS,
        unit=gettext_noop("ms"),
    ),
    Param(
        "backoff",
        gettext_noop("2. Backoff with full jitter before a retry"),
        "bool",
        False,
        gettext_noop(
            "Ticked: a caller waits a random time up to 100 × 2^attempt ms before it tries "
            "again. Unticked: it tries again at once."
        ),
        group=TOOLS,
    ),
    Param(
        "breaker",
        gettext_noop("3. Circuit breaker in front of the dependency"),
        "bool",
        False,
        gettext_noop("Ticked: after failures in a row the breaker is open and calls fail at once."),
        group=TOOLS,
    ),
    Param(
        "breaker_threshold",
        gettext_noop("Failures in a row before it opens"),
        "int",
        5,
        gettext_noop("Used only when the breaker is ticked."),
        min=1,
        max=100,
        group=TOOLS,
    ),
    Param(
        "breaker_open_s",
        gettext_noop("Open time"),
        "int",
        10,
        gettext_noop("How long the breaker stays open before one trial call."),
        min=1,
        max=60,
        group=TOOLS,
        unit=gettext_noop("s"),
    ),
    Param(
        "fallback",
        gettext_noop("4. Fallback page from the cache"),
        "bool",
        False,
        gettext_noop(
            "Ticked: a page whose dependency call failed is answered from its cached copy."
        ),
        group=TOOLS,
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The stall has to lie inside the run, and the run has to stay within a second or so."""
    errors = outage_errors(params)
    attempts = _setup(params).attempts_bound
    if attempts > MAX_ATTEMPTS:
        errors["rate_per_s"] = gettext(
            "This could make %(attempts)s attempts (requests × seconds × (1 + retries)); the "
            "lab allows %(limit)s. Lower the rate, the seconds or the retries."
        ) % {"attempts": num(attempts), "limit": num(MAX_ATTEMPTS)}
    return errors


def cost(params: Mapping[str, Any]) -> Cost:
    """An upper bound on the run's worker time: every request uses every retry."""
    return Cost(
        _setup(params).attempts_bound * SECONDS_PER_ATTEMPT,
        ("rate_per_s", "duration_s", "caller_retries"),
    )


def _setup(params: Mapping[str, Any], *, bare: bool = False) -> CascadeSetup:
    """The model's setup from the form's values; `bare` switches every tool off."""
    tools = not bare
    return CascadeSetup(
        rate_per_s=params["rate_per_s"],
        duration_s=params["duration_s"],
        threads=params["threads"],
        dependency_share=params["dependency_pct"] / 100,
        stall_from_s=params["down_from_s"],
        stall_until_s=max(params["down_until_s"], params["down_from_s"]),
        stall_kind=params["stall_kind"],
        caller_timeout_ms=params["caller_timeout_ms"],
        caller_retries=params["caller_retries"],
        dependency_timeout_ms=(
            params["dependency_timeout_ms"] if tools and params["use_timeout"] else None
        ),
        backoff=tools and params["backoff"],
        breaker=tools and params["breaker"],
        breaker_threshold=params["breaker_threshold"],
        breaker_open_s=params["breaker_open_s"],
        fallback=tools and params["fallback"],
        arrivals=params.get("arrivals", "even"),  # a run saved before the choice: even
    )


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def figures(run: CascadeRun) -> dict[str, Any]:
    """The headline figures of one played run, over the stall and after it."""
    s, stall = run.setup, run.during_stall()
    outcomes = sum(x.answered + x.errors + x.gave_up for x in stall)
    recovered = next(
        (
            x.second
            for x in run.seconds
            if x.second >= s.stall_until_s and (x.good_share or 0) >= 0.95
        ),
        None,
    )
    return {
        "usable_share_stall": _share(sum(x.answered for x in stall), outcomes),
        "own_pages_share_stall": _share(
            sum(x.own_pages_ok for x in stall), sum(x.own_pages_sent for x in stall)
        ),
        "fallback_answers": sum(x.fallback for x in run.seconds),
        "requests_failed": run.requests_failed,
        "attempts_per_request": round(run.attempts / run.requests, 2) if run.requests else 0,
        "peak_threads_busy": run.peak_threads_busy,
        "peak_waiting_on_dependency": run.peak_waiting_on_dependency,
        "dependency_calls_stall": sum(x.dependency_calls for x in stall),
        "dependency_rate_stall": (
            round(sum(x.dependency_attempts for x in stall) / len(stall), 1) if stall else 0.0
        ),
        "busiest_retry_slot": run.busiest_retry_slot,
        "breaker_opened": run.breaker_opened,
        "recovered_at_s": recovered,
    }


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the student's setting and the same traffic with no tool at all, for contrast."""
    mine = play_cascade(_setup(params), seed)
    progress.update(1, 2)
    # With every tool off the two plays are the same: play it once.
    bare = play_cascade(_setup(params, bare=True), seed) if tools_on(params) else mine
    progress.update(2, 2)
    summary = figures(mine)
    bare_figures = figures(bare)
    summary["bare_usable_share_stall"] = bare_figures["usable_share_stall"]
    summary["bare_own_pages_share_stall"] = bare_figures["own_pages_share_stall"]
    summary["threads_needed"] = threads_needed(params, summary["dependency_rate_stall"])
    rows = mine.seconds
    return {
        "summary": summary,
        "series": {
            "second": [x.second for x in rows],
            "new_requests": [x.new_requests for x in rows],
            "retries": [x.retries for x in rows],
            "ok": [x.ok for x in rows],
            "fallback": [x.fallback for x in rows],
            "errors": [x.errors for x in rows],
            "gave_up": [x.gave_up for x in rows],
            "wasted": [x.wasted for x in rows],
            "threads_busy": [x.threads_busy for x in rows],
            "queued": [x.queued for x in rows],
            "dependency_calls": [x.dependency_calls for x in rows],
            "fast_fails": [x.fast_fails for x in rows],
            "breaker": [x.breaker for x in rows],
            "bare_usable": [x.answered for x in bare.seconds],
        },
    }


def threads_needed(params: Mapping[str, Any], calls_per_s: float) -> int:
    """Little's law for the stall: (calls a second for the dependency, retries included:
    they are arrivals too) × (seconds each holds a thread). With a timeout a call holds its
    thread at most that long; without one, as long as the stuck dependency hangs."""
    return round(calls_per_s * hold_s(params))


def hold_s(params: Mapping[str, Any]) -> float:
    """How long one call to the stalled dependency holds a thread, at most."""
    if params["stall_kind"] == "down":
        return 0  # a refused call holds nobody
    hold_ms = CascadeSetup.stuck_ms
    if params["use_timeout"]:
        hold_ms = min(hold_ms, params["dependency_timeout_ms"])
    return hold_ms / 1000


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{num(round(share * 100, 1))}%"


def tools_on(params: Mapping[str, Any]) -> list[str]:
    """The tools switched on, in the lesson's order, in the reader's words."""
    names = (
        ("use_timeout", gettext_noop("timeout")),
        ("backoff", gettext_noop("backoff with jitter")),
        ("breaker", gettext_noop("circuit breaker")),
        ("fallback", gettext_noop("fallback")),
    )
    return [gettext(label) for key, label in names if params[key]]


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    on = tools_on(p)
    words = {
        "start": p["down_from_s"],
        "end": p["down_until_s"],
        "tools": ", ".join(on) if on else gettext("none"),
    }
    if p["stall_kind"] == "stuck":
        stall = gettext(
            "The dependency is stuck (its calls hang) from second %(start)s to %(end)s; "
            "tools on: %(tools)s."
        )
    else:
        stall = gettext(
            "The dependency is down (its calls are refused) from second %(start)s to %(end)s; "
            "tools on: %(tools)s."
        )
    lines = [
        stall % words,
        gettext(
            "During the stall callers got a usable answer %(usable)s of the time, and the pages "
            "that never call the dependency %(own)s. With no tool at all: %(bare)s and "
            "%(bare_own)s."
        )
        % {
            "usable": _pct(s["usable_share_stall"]),
            "own": _pct(s["own_pages_share_stall"]),
            "bare": _pct(s["bare_usable_share_stall"]),
            "bare_own": _pct(s["bare_own_pages_share_stall"]),
        },
    ]
    if s["threads_needed"]:
        lines.append(
            gettext(
                "Little's law: during the stall %(rate)s calls a second were for the "
                "dependency (%(new)s new, the rest retries) × %(hold)s s each = %(needed)s "
                "threads wanted, against %(threads)s in the pool."
            )
            % {
                "rate": num(s["dependency_rate_stall"]),
                "new": num(p["rate_per_s"] * p["dependency_pct"] / 100),
                "hold": num(hold_s(p)),
                "needed": num(s["threads_needed"]),
                "threads": num(p["threads"]),
            }
        )
    if s["peak_threads_busy"] >= p["threads"]:
        lines.append(
            gettext(
                "The pool was full: all %(threads)s threads were held at once, so every page "
                "waited for one, even those that never call the dependency."
            )
            % {"threads": num(p["threads"])}
        )
    else:
        lines.append(
            gettext("At most %(held)s of the %(threads)s threads were held at once.")
            % {"held": num(s["peak_threads_busy"]), "threads": num(p["threads"])}
        )
    lines.append(
        gettext(
            "%(calls)s calls reached the sick dependency during the stall; each request was "
            "tried %(attempts)s times on average; %(failed)s requests failed every try."
        )
        % {
            "calls": num(s["dependency_calls_stall"]),
            "attempts": num(s["attempts_per_request"]),
            "failed": num(s["requests_failed"]),
        }
    )
    if s["recovered_at_s"] is None:
        lines.append(
            gettext("The service had not recovered when the run ended: make the run longer.")
        )
    else:
        lines.append(
            gettext("The service answered 95%% of requests again from second %(t)s.")
            % {"t": s["recovered_at_s"]}
        )
    return lines


FIGURES = (
    Figure(
        "usable_share_stall",
        gettext_noop("Share of usable answers during the stall"),
        "float",
        nullable=True,
    ),
    Figure(
        "own_pages_share_stall",
        gettext_noop("Pages that don't use the dependency, answered during the stall"),
        "float",
        nullable=True,
    ),
    Figure("fallback_answers", gettext_noop("Answers from the cached copy"), "int"),
    Figure("requests_failed", gettext_noop("Requests that failed every try"), "int"),
    Figure("attempts_per_request", gettext_noop("Attempts per request"), "float"),
    Figure("peak_threads_busy", gettext_noop("Most threads held at once"), "int"),
    Figure(
        "peak_waiting_on_dependency",
        gettext_noop("Most calls waiting on the dependency at once"),
        "int",
    ),
    Figure(
        "dependency_calls_stall",
        gettext_noop("Calls that reached the dependency during the stall"),
        "int",
    ),
    Figure(
        "dependency_rate_stall",
        gettext_noop("Calls a second for the dependency during the stall, retries included"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure("busiest_retry_slot", gettext_noop("Most retries in one 10 ms slot"), "int"),
    Figure("breaker_opened", gettext_noop("Times the breaker opened"), "int"),
    Figure(
        "recovered_at_s",
        gettext_noop("Second the service answered 95% again"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "bare_usable_share_stall",
        gettext_noop("Share of usable answers with no tool"),
        "float",
        nullable=True,
    ),
    Figure(
        "bare_own_pages_share_stall",
        gettext_noop("Share of pages without the dependency answered with no tool"),
        "float",
        nullable=True,
    ),
    Figure("threads_needed", gettext_noop("Threads Little's law asks for"), "int"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    uses_seed=USES_SEED,
    cost=cost,
    spread=SPREAD,
)
