"""Lesson 13's connect and read timeouts inside one total deadline, with a callee whose
timeout may outlive its caller's, as a lab."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.sim.deadline import call_within_deadline
from labs.text import gettext, gettext_noop, num

# The same caller with no total deadline: what the deadline saves.
NO_DEADLINE_S = 1e9


def _seconds(name: str, label: str, default: float, help_text: str, group: str) -> Param:
    return Param(name, label, "float", default, help_text, min=0.01, max=600, group=group, unit="s")


PARAMS = (
    _seconds(
        "deadline_s",
        gettext_noop("Total deadline"),
        5.0,
        gettext_noop("The caller's whole budget, every try and wait included."),
        gettext_noop("The caller"),
    ),
    _seconds(
        "connect_s",
        gettext_noop("Connect timeout"),
        1.0,
        gettext_noop("How long one try waits to reach the service."),
        gettext_noop("The caller"),
    ),
    _seconds(
        "read_s",
        gettext_noop("Read timeout"),
        2.0,
        gettext_noop("How long one try waits for the answer once connected."),
        gettext_noop("The caller"),
    ),
    Param(
        "attempts",
        gettext_noop("Tries"),
        "int",
        4,
        gettext_noop("The first call plus its retries."),
        min=1,
        max=10,
        group=gettext_noop("The caller"),
    ),
    _seconds(
        "base_s",
        gettext_noop("First wait between tries"),
        0.1,
        gettext_noop("Each later wait doubles it."),
        gettext_noop("The caller"),
    ),
    _seconds(
        "cap_s",
        gettext_noop("Longest wait between tries"),
        3.2,
        gettext_noop("No wait grows beyond this."),
        gettext_noop("The caller"),
    ),
    _seconds(
        "service_s",
        gettext_noop("Time the service needs to answer"),
        10.0,
        gettext_noop("Longer than the read timeout: the service is slow."),
        gettext_noop("The service"),
    ),
    _seconds(
        "callee_timeout_s",
        gettext_noop("The service's own timeout"),
        30.0,
        gettext_noop("How long the service works on one try before it gives up itself."),
        gettext_noop("The service"),
    ),
    Param(
        "connect_fails",
        gettext_noop("The service cannot be reached"),
        "bool",
        False,
        gettext_noop("Every try ends at the connect timeout."),
        group=gettext_noop("The service"),
    ),
)


def _call(params: Mapping[str, Any], deadline_s: float):
    return call_within_deadline(
        deadline_s=deadline_s,
        connect_s=params["connect_s"],
        read_s=params["read_s"],
        attempts=params["attempts"],
        base_s=params["base_s"],
        cap_s=params["cap_s"],
        service_s=params["service_s"],
        callee_timeout_s=params["callee_timeout_s"],
        connect_fails=params["connect_fails"],
    )


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The tries within the deadline, and the same caller without one."""
    within = _call(params, params["deadline_s"])
    without = _call(params, NO_DEADLINE_S)
    works = 0.0 if params["connect_fails"] else min(params["service_s"], params["callee_timeout_s"])
    progress.update(1, 1)
    return {
        "summary": {
            "tries": len(within.tries),
            "answered": within.answered,
            "caller_waited_s": round(within.caller_waited_s, 3),
            "wasted_s": round(within.wasted_s, 3),
            "no_deadline_waited_s": round(without.caller_waited_s, 3),
        },
        "series": {
            "try": list(range(1, len(within.tries) + 1)),
            "start_s": [round(t.start_s, 3) for t in within.tries],
            "caller_end_s": [round(t.end_s, 3) for t in within.tries],
            "service_end_s": [
                round(t.end_s if t.answered else t.start_s + works, 3) for t in within.tries
            ],
            "wasted_s": [round(t.wasted_s, 3) for t in within.tries],
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "tries": s["tries"],
        "waited": num(s["caller_waited_s"]),
        "deadline": num(p["deadline_s"]),
        "without": num(s["no_deadline_waited_s"]),
        "wasted": num(s["wasted_s"]),
    }
    first = (
        gettext("Answered after %(tries)s tries, %(waited)s s after the first.")
        if s["answered"]
        else gettext(
            "No answer: %(tries)s tries in %(waited)s s, inside the %(deadline)s s deadline. "
            "Without the deadline the caller would have waited %(without)s s."
        )
    )
    lines = [first % values]
    if s["wasted_s"] > 0:
        lines.append(
            gettext(
                "The service went on working %(wasted)s s after its caller had given up: "
                "its own timeout is longer than its caller's, so that work was for nobody."
            )
            % values
        )
    return lines


FIGURES = (
    Figure("tries", gettext_noop("Tries made"), "int"),
    Figure("answered", gettext_noop("The caller got an answer"), "bool"),
    Figure("caller_waited_s", gettext_noop("Time the caller waited"), "float", "s"),
    Figure("wasted_s", gettext_noop("Work the service did for nobody"), "float", "s"),
    Figure(
        "no_deadline_waited_s",
        gettext_noop("Time the caller would wait with no deadline"),
        "float",
        "s",
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
