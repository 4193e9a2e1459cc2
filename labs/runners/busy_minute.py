"""Lesson 07's busy minute: jobs arrive faster than the workers finish, then stop."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.params import Param
from labs.runners.common import finite
from labs.runs.progress import Progress
from labs.sim import busy_backlog, clear_time_s, rush
from labs.text import num

PARAMS = (
    Param(
        "arrive_per_s",
        "Jobs arriving each second in the busy spell",
        "int",
        3_000,
        "How many jobs join the queue every second while it is busy.",
        min=0,
        max=1_000_000,
        group="The busy spell",
        unit="jobs/s",
    ),
    Param(
        "busy_s",
        "Length of the busy spell",
        "int",
        60,
        "How many seconds the busy arrivals last.",
        min=1,
        max=3_600,
        group="The busy spell",
        unit="s",
    ),
    Param(
        "capacity_per_s",
        "Jobs all workers together finish each second",
        "int",
        2_500,
        "The whole pool's speed: workers × jobs per worker per second.",
        min=0,
        max=1_000_000,
        group="Workers",
        unit="jobs/s",
    ),
    Param(
        "arrive_after_per_s",
        "Jobs arriving each second after the spell",
        "int",
        0,
        "The quieter arrivals once the busy spell is over.",
        min=0,
        max=1_000_000,
        group="After the spell",
        unit="jobs/s",
    ),
    Param(
        "after_s",
        "Seconds to watch after the spell",
        "int",
        20,
        "How long the lab goes on after the busy spell, to see the backlog clear.",
        min=0,
        max=3_600,
        group="After the spell",
        unit="s",
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
    spell = f"{p['busy_s']} s of {num(p['arrive_per_s'])} jobs/s"
    if s["backlog_after_spell"] == 0:
        return [
            f"The workers keep up with {spell}: {num(p['capacity_per_s'])} jobs/s is enough, "
            "so no backlog builds."
        ]
    lines = [
        f"After {spell} against {num(p['capacity_per_s'])} jobs/s of work, "
        f"{num(s['backlog_after_spell'])} jobs are waiting.",
    ]
    if s["clear_after_spell_s"] is None:
        lines.append(
            "The backlog never clears: after the spell, jobs still arrive as fast as "
            "the workers finish them."
        )
    else:
        lines.append(
            f"Once the spell ends, the workers clear it in {num(s['clear_after_spell_s'])} s."
        )
    if s["cleared_at_s"] is not None:
        lines.append(f"The queue is empty again at second {s['cleared_at_s']}.")
    elif s["clear_after_spell_s"] is not None:
        lines.append(
            f"{num(s['left_at_end'])} jobs are still waiting at the end: watch longer to see "
            "it clear."
        )
    return lines


FIGURES = (
    Figure("backlog_after_spell", "Backlog when the busy spell ends", "int", "jobs"),
    Figure("backlog_by_formula", "Backlog by the formula", "int", "jobs"),
    Figure("peak_backlog", "Peak backlog", "int", "jobs"),
    Figure("clear_after_spell_s", "Time to clear after the spell", "float", "s", nullable=True),
    Figure("cleared_at_s", "Second the queue was empty again", "int", "s", nullable=True),
    Figure("left_at_end", "Jobs still waiting at the end", "int", "jobs"),
    Figure("seconds", "Seconds simulated", "int", "s"),
)
