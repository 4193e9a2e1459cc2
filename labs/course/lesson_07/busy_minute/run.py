"""Lesson 07's busy minute: jobs arrive faster than the workers finish, then stop."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import finite
from labs.sim import busy_backlog, clear_time_s, rush
from labs.text import gettext, gettext_noop, num

PARAMS = (
    Param(
        "arrive_per_s",
        gettext_noop("Jobs arriving each second in the busy spell"),
        "int",
        3_000,
        gettext_noop("How many jobs join the queue every second while it is busy."),
        min=0,
        max=1_000_000,
        group=gettext_noop("The busy spell"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "busy_s",
        gettext_noop("Length of the busy spell"),
        "int",
        60,
        gettext_noop("How many seconds the busy arrivals last."),
        min=1,
        max=3_600,
        group=gettext_noop("The busy spell"),
        unit=gettext_noop("s"),
    ),
    Param(
        "capacity_per_s",
        gettext_noop("Jobs all workers together finish each second"),
        "int",
        2_500,
        gettext_noop("The whole pool's speed: workers × jobs per worker per second."),
        min=0,
        max=1_000_000,
        group=gettext_noop("Workers"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "arrive_after_per_s",
        gettext_noop("Jobs arriving each second after the spell"),
        "int",
        0,
        gettext_noop("The quieter arrivals once the busy spell is over."),
        min=0,
        max=1_000_000,
        group=gettext_noop("After the spell"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "after_s",
        gettext_noop("Seconds to watch after the spell"),
        "int",
        20,
        gettext_noop("How long the lab goes on after the busy spell, to see the backlog clear."),
        min=0,
        max=3_600,
        group=gettext_noop("After the spell"),
        unit=gettext_noop("s"),
    ),
)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the spell second by second, and work the same figures out by formula."""
    arrive, capacity, busy_s = params["arrive_per_s"], params["capacity_per_s"], params["busy_s"]
    rows = rush(arrive, capacity, busy_s, params["after_s"], params["arrive_after_per_s"])
    backlog = busy_backlog(arrive, capacity, busy_s)
    clear_s = clear_time_s(backlog, capacity, params["arrive_after_per_s"])
    last_busy = busy_s - 1
    cleared_at = next((r.second for r in rows[last_busy:] if r.backlog == 0), None)
    progress.update(len(rows), len(rows))
    return {
        "summary": {
            "backlog_after_spell": rows[last_busy].backlog,
            "backlog_by_formula": backlog,
            "peak_backlog": max(r.backlog for r in rows),
            "clear_after_spell_s": finite(round(clear_s, 1)),  # None: it never clears
            "cleared_at_s": cleared_at,  # None: not within the seconds watched
            "left_at_end": rows[-1].backlog,
            "seconds": len(rows),
        },
        "series": {
            "second": [r.second for r in rows],
            "arrived": [r.arrived for r in rows],
            "done": [r.done for r in rows],
            "backlog": [r.backlog for r in rows],
        },
        "tables": {},
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    spell = {
        "busy": p["busy_s"],
        "rate": num(p["arrive_per_s"]),
        "capacity": num(p["capacity_per_s"]),
    }
    if s["backlog_after_spell"] == 0:
        return [
            gettext(
                "The workers keep up with %(busy)s s of %(rate)s jobs/s: %(capacity)s jobs/s "
                "is enough, so no backlog builds."
            )
            % spell
        ]
    lines = [
        gettext(
            "After %(busy)s s of %(rate)s jobs/s against %(capacity)s jobs/s of work, "
            "%(n)s jobs are waiting."
        )
        % (spell | {"n": num(s["backlog_after_spell"])}),
    ]
    if s["clear_after_spell_s"] is None:
        lines.append(
            gettext(
                "The backlog never clears: after the spell, jobs still arrive as fast as "
                "the workers finish them."
            )
        )
    else:
        lines.append(
            gettext("Once the spell ends, the workers clear it in %(t)s s.")
            % {"t": num(s["clear_after_spell_s"])}
        )
    if s["cleared_at_s"] is not None:
        lines.append(
            gettext("The queue is empty again at second %(t)s.") % {"t": s["cleared_at_s"]}
        )
    elif s["clear_after_spell_s"] is not None:
        lines.append(
            gettext("%(n)s jobs are still waiting at the end: watch longer to see it clear.")
            % {"n": num(s["left_at_end"])}
        )
    return lines


FIGURES = (
    Figure(
        "backlog_after_spell",
        gettext_noop("Backlog when the busy spell ends"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure(
        "backlog_by_formula", gettext_noop("Backlog by the formula"), "int", gettext_noop("jobs")
    ),
    Figure("peak_backlog", gettext_noop("Peak backlog"), "int", gettext_noop("jobs")),
    Figure(
        "clear_after_spell_s",
        gettext_noop("Time to clear after the spell"),
        "float",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "cleared_at_s",
        gettext_noop("Second the queue was empty again"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure(
        "left_at_end", gettext_noop("Jobs still waiting at the end"), "int", gettext_noop("jobs")
    ),
    Figure("seconds", gettext_noop("Seconds simulated"), "int", gettext_noop("s")),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
