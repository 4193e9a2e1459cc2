"""Lesson 12's comparison: the same burst through several scaling rules at once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from labs.course.lesson_12.drain.run import WORKLOAD_PARAMS
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import drain, drain_summary, fixed, per_backlog
from labs.text import gettext, gettext_noop, num, phrase, said

PARAMS = (
    *WORKLOAD_PARAMS,
    Param(
        "fixed_pools",
        gettext_noop("Fixed pools to compare"),
        "int_list",
        [3, 8],
        gettext_noop(
            "Comma-separated worker counts: each is a rule that always runs that many workers."
        ),
        min=0,
        max=1_000,
        max_items=4,
        group=gettext_noop("Fixed rules"),
    ),
    Param(
        "per_waiting",
        gettext_noop("Backlog rules: one worker per K waiting"),
        "int_list",
        [100, 100, 50],
        gettext_noop(
            "Comma-separated K values, one per backlog rule: run ceil(backlog / K) workers."
        ),
        min=1,
        max=100_000,
        max_items=4,
        group=gettext_noop("Backlog rules"),
        unit=gettext_noop("jobs"),
    ),
    Param(
        "max_workers",
        gettext_noop("Backlog rules: most workers"),
        "int_list",
        [10, 20, 20],
        gettext_noop("Comma-separated ceilings, one for each K above, in the same order."),
        min=1,
        max=1_000,
        max_items=4,
        group=gettext_noop("Backlog rules"),
    ),
    Param(
        "min_workers",
        gettext_noop("Backlog rules: fewest workers"),
        "int",
        1,
        gettext_noop(
            "Every backlog rule keeps at least this many workers, even with an empty queue."
        ),
        min=0,
        max=1_000,
        group=gettext_noop("Backlog rules"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """Each backlog rule needs both its K and its ceiling, and a floor below it."""
    per_waiting, ceilings = params["per_waiting"], params["max_workers"]
    if len(per_waiting) != len(ceilings):
        return {
            "max_workers": gettext(
                "Give one ceiling for each K: %(k)s K values but %(ceilings)s ceilings."
            )
            % {"k": len(per_waiting), "ceilings": len(ceilings)}
        }
    low = [c for c in ceilings if c < params["min_workers"]]
    if low:
        return {
            "min_workers": gettext(
                "Fewest workers (%(least)s) must not be more than a rule's most workers (%(most)s)."
            )
            % {"least": params["min_workers"], "most": min(low)}
        }
    return {}


def rules(params: Mapping[str, Any]) -> list[tuple[str, Callable[[int], int]]]:
    """(label, rule) for every rule to compare: the fixed pools first, as the lesson does."""
    out = [(f"fixed {n}", fixed(n)) for n in params["fixed_pools"]]
    low = params["min_workers"]
    for k, high in zip(params["per_waiting"], params["max_workers"], strict=True):
        out.append((f"1 per {k} waiting, max {high}", per_backlog(k, low, high)))
    return out


def rule_words(params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each rule's label (the key the result keeps, in English) as a phrase for the page."""
    words = {f"fixed {n}": phrase(gettext_noop("fixed %(n)s"), n=n) for n in params["fixed_pools"]}
    for k, high in zip(params["per_waiting"], params["max_workers"], strict=True):
        words[f"1 per {k} waiting, max {high}"] = phrase(
            gettext_noop("1 per %(k)s waiting, max %(high)s"), k=k, high=high
        )
    return words


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the same arrivals through every rule; the model has no randomness."""
    compared = rules(params)
    per_rule: list[dict[str, Any]] = []
    for done, (label, rule) in enumerate(compared, start=1):
        rows = drain(params["arrivals"], params["per_worker"], rule)
        summary = drain_summary(rows)
        peak_at = max(range(len(rows)), key=lambda i: rows[i].backlog) if rows else 0
        cleared = next((r.second for r in rows[peak_at:] if r.backlog == 0), None)
        per_rule.append(
            {
                "rule": label,
                **summary,
                "worker_seconds": sum(r.workers for r in rows),
                "cleared_at_s": cleared if summary["peak_backlog"] else 0,
                "backlog": [r.backlog for r in rows],
                "workers": [r.workers for r in rows],
            }
        )
        progress.update(done, len(compared))
    seconds = len(params["arrivals"])
    emptied = [r for r in per_rule if r["left_at_end"] == 0]
    cheapest = min(emptied, key=lambda r: r["worker_seconds"]) if emptied else None
    lowest = min(per_rule, key=lambda r: (r["peak_backlog"], r["worker_seconds"]))
    words = rule_words(params)
    return {
        "summary": {
            "rules": len(per_rule),
            "seconds": seconds,
            "lowest_peak_backlog": lowest["peak_backlog"],
            "lowest_peak_rule": lowest["rule"],
            "rules_left_behind": len(per_rule) - len(emptied),
            "cheapest_emptying_rule": cheapest["rule"] if cheapest else None,
            "cheapest_worker_seconds": cheapest["worker_seconds"] if cheapest else None,
        },
        "series": {
            key: [r[key] for r in per_rule]
            for key in (
                "rule",
                "peak_backlog",
                "most_workers",
                "left_at_end",
                "worker_seconds",
                "cleared_at_s",
            )
        },
        "tables": {
            "rule_words": words,
            "rules": table(
                gettext_noop("Each rule"),
                [
                    gettext_noop("rule"),
                    gettext_noop("peak backlog"),
                    gettext_noop("most workers"),
                    phrase(gettext_noop("left after %(s)s s"), s=seconds),
                    gettext_noop("worker-seconds"),
                ],
                [
                    [
                        words[str(r["rule"])],
                        num(r["peak_backlog"]),
                        r["most_workers"],
                        num(r["left_at_end"]),
                        num(r["worker_seconds"]),
                    ]
                    for r in per_rule
                ],
            ),
            "per_second": {
                "second": list(range(seconds)),
                "backlog": {r["rule"]: r["backlog"] for r in per_rule},
                "workers": {r["rule"]: r["workers"] for r in per_rule},
            },
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    """One line per rule with the lesson's three figures, then the verdict."""
    s, rows = result["summary"], result["series"]
    words = result["tables"].get("rule_words", {})
    lines = [
        gettext(
            "%(rule)s: peak backlog %(peak)s · most workers %(most)s · left after %(t)s s %(left)s."
        )
        % {
            "rule": said(words.get(label, label)),
            "peak": num(peak),
            "most": most,
            "t": s["seconds"],
            "left": num(left),
        }
        for label, peak, most, left in zip(
            rows["rule"],
            rows["peak_backlog"],
            rows["most_workers"],
            rows["left_at_end"],
            strict=True,
        )
    ]
    if s["cheapest_emptying_rule"] is None:
        lines.append(gettext("No rule emptied the queue in time: add workers or seconds."))
    else:
        lines.append(
            gettext("Cheapest rule that empties the queue: %(rule)s (%(ws)s worker-seconds).")
            % {
                "rule": said(words.get(s["cheapest_emptying_rule"], s["cheapest_emptying_rule"])),
                "ws": num(s["cheapest_worker_seconds"]),
            }
        )
    return lines


FIGURES = (
    Figure("rules", gettext_noop("Rules compared"), "int"),
    Figure("seconds", gettext_noop("Seconds simulated"), "int", gettext_noop("s")),
    Figure("lowest_peak_backlog", gettext_noop("Lowest peak backlog"), "int", gettext_noop("jobs")),
    Figure("lowest_peak_rule", gettext_noop("Rule with the lowest peak"), "str"),
    Figure("rules_left_behind", gettext_noop("Rules that left jobs waiting"), "int"),
    Figure(
        "cheapest_emptying_rule",
        gettext_noop("Cheapest rule that emptied the queue"),
        "str",
        "",
        nullable=True,
    ),
    Figure(
        "cheapest_worker_seconds",
        gettext_noop("Worker-seconds of that rule"),
        "int",
        gettext_noop("worker-seconds"),
        nullable=True,
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
