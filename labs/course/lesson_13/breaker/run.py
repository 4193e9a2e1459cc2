"""Lesson 13's circuit breaker over a dependency that is down for a while."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import outage_errors, table
from labs.sim import BreakerRun, play_breaker
from labs.text import gettext, gettext_noop, num

# The states `final_state` takes (closed, open, half-open) are the course's English names in
# both languages (docs/glossary-mr.md): in Marathi बंद would say the opposite of a closed breaker.

PARAMS = (
    Param(
        "threshold",
        gettext_noop("Failures in a row before it opens"),
        "int",
        5,
        gettext_noop("After this many failed calls in a row the breaker opens."),
        min=1,
        max=100,
        group=gettext_noop("Breaker on the timeline"),
    ),
    Param(
        "open_s",
        gettext_noop("Open time"),
        "int",
        10,
        gettext_noop(
            "How long the breaker stays open (every call fails fast) before one trial call."
        ),
        min=1,
        max=600,
        group=gettext_noop("Breaker on the timeline"),
        unit=gettext_noop("s"),
    ),
    Param(
        "down_from_s",
        gettext_noop("Dependency down from"),
        "int",
        0,
        gettext_noop("The second the dependency starts failing."),
        min=0,
        max=3_600,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "down_until_s",
        gettext_noop("Dependency back at"),
        "int",
        30,
        gettext_noop("The first second the dependency answers again."),
        min=0,
        max=3_600,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "duration_s",
        gettext_noop("Seconds to watch"),
        "int",
        40,
        gettext_noop("The caller calls once a second, at second 0, 1, 2, … for this long."),
        min=1,
        max=3_600,
        group=gettext_noop("Outage"),
        unit=gettext_noop("s"),
    ),
    Param(
        "other_thresholds",
        gettext_noop("Compare: failures before opening"),
        "int_list",
        [3, 5, 10],
        gettext_noop(
            "Comma-separated: more settings to compare with the one above, over the same outage."
        ),
        min=1,
        max=100,
        max_items=5,
        group=gettext_noop("Compare other settings"),
    ),
    Param(
        "other_open_s",
        gettext_noop("Compare: open times"),
        "int_list",
        [10, 2, 30],
        gettext_noop(
            "Comma-separated: one open time for each failure count above, in the same order."
        ),
        min=1,
        max=600,
        max_items=5,
        group=gettext_noop("Compare other settings"),
        unit=gettext_noop("s"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The outage has to make sense, and every compared setting needs both halves."""
    errors = outage_errors(params)
    thresholds, open_times = params["other_thresholds"], params["other_open_s"]
    if len(thresholds) != len(open_times):
        errors["other_open_s"] = gettext(
            "Give one open time for each failure count: %(counts)s counts but %(times)s open times."
        ) % {"counts": len(thresholds), "times": len(open_times)}
    return errors


def figures(run: BreakerRun, down_from_s: int, down_until_s: int) -> dict[str, Any]:
    """The lesson's figures for one played outage, measured from when it began."""
    # "First success" means the first after the outage began: a call before it proves nothing.
    first_ok = next((c.t for c in run.calls if c.outcome == "ok" and c.t >= down_from_s), None)
    return {
        "ok": run.ok,
        "failed": run.failed,  # reached the sick service and waited on it
        "fast_fail": run.fast_fail,
        "fast_fail_while_down": run.fast_fail_while_down,
        "fast_fail_after_recovery": run.fast_fail - run.fast_fail_while_down,
        "first_ok_s": first_ok,
        "late_by_s": first_ok - down_until_s if first_ok is not None else None,
        "final_state": run.final_state,
    }


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the outage through the chosen breaker and every compared one; no randomness."""
    outage = {
        "down_from_s": params["down_from_s"],
        "down_until_s": params["down_until_s"],
        "duration_s": params["duration_s"],
    }
    settings = [(params["threshold"], params["open_s"])]
    settings += list(zip(params["other_thresholds"], params["other_open_s"], strict=True))
    played = [play_breaker(t, o, **outage) for t, o in settings]
    rows = [figures(r, params["down_from_s"], params["down_until_s"]) for r in played]
    main = played[0]
    progress.update(1, 1)
    return {
        "summary": {"threshold": params["threshold"], "open_s": params["open_s"], **rows[0]},
        "series": {
            "second": [c.t for c in main.calls],
            "dependency_ok": [
                not params["down_from_s"] <= c.t < params["down_until_s"] for c in main.calls
            ],
            "outcome": [c.outcome for c in main.calls],
            # The state the call met: a trial meets half-open, a fast-fail meets open.
            "breaker": [
                "half-open" if c.trial else "open" if c.outcome == "fast-fail" else "closed"
                for c in main.calls
            ],
            "trial": [c.trial for c in main.calls],
        },
        "tables": {
            "compare": table(
                gettext_noop("The same outage through each breaker setting"),
                [
                    gettext_noop("failures to open"),
                    gettext_noop("open time"),
                    gettext_noop("reached the sick service"),
                    gettext_noop("failed fast"),
                    gettext_noop("first success at"),
                ],
                [
                    [t, f"{o} s", r["failed"], r["fast_fail"], _at(r["first_ok_s"])]
                    for (t, o), r in zip(settings, rows, strict=True)
                ],
            ),
            "compare_data": {
                "label": [f"{t} fails, open {o} s" for t, o in settings],
                # The same settings as numbers, so the page can say them in its own words.
                "fails": [t for t, _ in settings],
                "open_s": [o for _, o in settings],
                **{
                    key: [r[key] for r in rows]
                    for key in ("ok", "failed", "fast_fail", "first_ok_s")
                },
            },
        },
    }


def _at(second: int | None) -> str:
    return "never" if second is None else f"{second} s"


def setting_words(data: Mapping[str, Any], label: str) -> str:
    """A compared setting in the reader's words ("5 fails, open 10 s"); a result saved
    before the settings were kept as numbers shows its English label."""
    if "fails" not in data:
        return label
    i = data["label"].index(label)
    return gettext("%(fails)s fails, open %(open)s s") % {
        "fails": data["fails"][i],
        "open": data["open_s"][i],
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    down = p["down_until_s"] - p["down_from_s"]
    lines = [
        gettext(
            "The dependency is down for %(down)s s (seconds %(start)s to %(end)s); the breaker "
            "opens after %(threshold)s failures in a row and stays open %(open)s s."
        )
        % {
            "down": down,
            "start": p["down_from_s"],
            "end": p["down_until_s"] - 1,
            "threshold": s["threshold"],
            "open": s["open_s"],
        },
        gettext(
            "%(failed)s calls reached the sick service; %(fast)s failed fast "
            "(%(while_down)s of them while it was down)."
        )
        % {
            "failed": num(s["failed"]),
            "fast": num(s["fast_fail"]),
            "while_down": num(s["fast_fail_while_down"]),
        },
    ]
    if s["first_ok_s"] is None:
        lines.append(gettext("No call succeeded after the outage began: make the run longer."))
    elif s["late_by_s"]:
        lines.append(
            gettext("First success at %(t)s s: %(late)s s after the service came back.")
            % {"t": s["first_ok_s"], "late": s["late_by_s"]}
        )
    else:
        lines.append(
            gettext("First success at %(t)s s: as soon as the service came back.")
            % {"t": s["first_ok_s"]}
        )
    lines.append(gettext("At the end the breaker is %(state)s.") % {"state": s["final_state"]})
    data = result["tables"]["compare_data"]
    for label, failed, fast, first in list(
        zip(data["label"], data["failed"], data["fast_fail"], data["first_ok_s"], strict=True)
    )[1:]:
        words = {"label": label, "failed": num(failed), "fast": num(fast), "first": first}
        words["label"] = setting_words(data, label)
        if first is None:
            line = gettext(
                "Compare %(label)s: %(failed)s reached the sick service · %(fast)s failed fast "
                "· no success afterwards."
            )
        else:
            line = gettext(
                "Compare %(label)s: %(failed)s reached the sick service · %(fast)s failed fast "
                "· first success at %(first)s s."
            )
        lines.append(line % words)
    return lines


FIGURES = (
    Figure("threshold", gettext_noop("Failures in a row before opening"), "int"),
    Figure("open_s", gettext_noop("Open time"), "int", gettext_noop("s")),
    Figure("ok", gettext_noop("Calls that worked"), "int", gettext_noop("calls")),
    Figure(
        "failed", gettext_noop("Calls that reached the sick service"), "int", gettext_noop("calls")
    ),
    Figure("fast_fail", gettext_noop("Calls that failed fast"), "int", gettext_noop("calls")),
    Figure(
        "fast_fail_while_down",
        gettext_noop("Fast fails while the service was down"),
        "int",
        gettext_noop("calls"),
    ),
    Figure(
        "fast_fail_after_recovery",
        gettext_noop("Fast fails after the service came back"),
        "int",
        gettext_noop("calls"),
    ),
    Figure(
        "first_ok_s",
        gettext_noop("First success after the outage began"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "late_by_s",
        gettext_noop("How late the breaker noticed the recovery"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("final_state", gettext_noop("Breaker state at the end"), "str"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
