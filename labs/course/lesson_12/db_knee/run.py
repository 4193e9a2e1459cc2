"""Lessons 07 and 12: workers scaled on the backlog push the database past its knee; a cap
on the workers at the knee keeps it at its best."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, bounded
from labs.interface.progress import Progress
from labs.sim.db_knee import Database, KneeRow, caught_up_at, latency_ms, serve, throughput_per_s
from labs.text import gettext, gettext_noop, num

WORK, DB, POOL = gettext_noop("The work"), gettext_noop("The database"), gettext_noop("The workers")


PARAMS = (
    bounded(
        "seconds",
        gettext_noop("Seconds to watch"),
        "int",
        60,
        gettext_noop("The length of the timeline."),
        10,
        600,
        WORK,
        "s",
    ),
    bounded(
        "steady_per_s",
        gettext_noop("Jobs arriving each second, normally"),
        "int",
        800,
        gettext_noop("Before and after the burst."),
        0,
        100_000,
        WORK,
        gettext_noop("jobs/s"),
    ),
    bounded(
        "burst_per_s",
        gettext_noop("Jobs arriving each second during the burst"),
        "int",
        3000,
        gettext_noop("A rush the workers must absorb."),
        0,
        100_000,
        WORK,
        gettext_noop("jobs/s"),
    ),
    bounded(
        "burst_from_s",
        gettext_noop("Burst starts at"),
        "int",
        5,
        gettext_noop("A second of the timeline."),
        0,
        600,
        WORK,
        "s",
    ),
    bounded(
        "burst_s",
        gettext_noop("Burst lasts"),
        "int",
        5,
        gettext_noop("Seconds."),
        0,
        600,
        WORK,
        "s",
    ),
    Param(
        "query_ms",
        gettext_noop("Time one query takes"),
        "float",
        10.0,
        gettext_noop(
            "Each job is one query; this is its time while the database is not past its knee."
        ),
        min=0.1,
        max=10_000,
        group=DB,
        unit="ms",
    ),
    bounded(
        "knee",
        gettext_noop("Queries at once at the knee"),
        "int",
        16,
        gettext_noop("The concurrency with the most answers a second, about the database's cores."),
        1,
        1_000,
        DB,
    ),
    Param(
        "contention_pct",
        gettext_noop("Slow-down per query past the knee"),
        "float",
        5.0,
        gettext_noop(
            "Every query past the knee slows all of them by this much (locks, memory, CPU)."
        ),
        min=0,
        max=100,
        group=DB,
        unit="%",
    ),
    bounded(
        "max_connections",
        gettext_noop("Connection limit"),
        "int",
        100,
        gettext_noop("Workers past this are refused a connection (PostgreSQL's default is 100)."),
        1,
        10_000,
        DB,
    ),
    bounded(
        "per_waiting",
        gettext_noop("One worker per this many waiting"),
        "int",
        100,
        gettext_noop("The scaler reads the backlog, as in Lesson 12."),
        1,
        1_000_000,
        POOL,
        gettext_noop("jobs"),
    ),
    bounded(
        "max_workers",
        gettext_noop("Most workers the scaler may start"),
        "int",
        50,
        gettext_noop("The scaler's own ceiling."),
        1,
        2_000,
        POOL,
    ),
    bounded(
        "cap",
        gettext_noop("Cap on the workers (the fix)"),
        "int",
        16,
        gettext_noop("The same scaler, never more than this: a Lambda's maximum concurrency."),
        1,
        2_000,
        POOL,
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    if params["burst_from_s"] >= params["seconds"]:
        return {"burst_from_s": gettext("The burst must start before the timeline ends.")}
    return {}


def database(params: Mapping[str, Any]) -> Database:
    return Database(
        query_ms=params["query_ms"],
        knee=params["knee"],
        contention_pct=params["contention_pct"],
        max_connections=params["max_connections"],
    )


def arrivals(params: Mapping[str, Any]) -> list[int]:
    start, end = params["burst_from_s"], params["burst_from_s"] + params["burst_s"]
    return [
        params["burst_per_s"] if start <= t < end else params["steady_per_s"]
        for t in range(params["seconds"])
    ]


def _caught_up(rows: list[KneeRow], params: Mapping[str, Any]) -> int | None:
    start = params["burst_from_s"]
    before = rows[start - 1].backlog if start else 0
    return caught_up_at(rows, max(before, params["steady_per_s"]), start)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The same arrivals with the scaler's ceiling and with the cap; no randomness."""
    db, offered = database(params), arrivals(params)
    scaled = serve(
        offered, db, per_waiting=params["per_waiting"], max_workers=params["max_workers"]
    )
    capped = serve(offered, db, per_waiting=params["per_waiting"], max_workers=params["cap"])
    progress.update(1, 1)
    widest = max(params["max_workers"], params["cap"], 2 * params["knee"])
    curve = list(range(1, min(widest, db.max_connections) + 1))
    summary = {
        "knee_concurrency": db.knee,
        "peak_db_per_s": round(throughput_per_s(db.knee, db), 1),
        "scaled_most_workers": max(r.workers for r in scaled),
        "scaled_refused_peak": max(r.workers - r.connected for r in scaled),
        "scaled_db_per_s_at_end": scaled[-1].done,
        "scaled_latency_ms_at_end": round(scaled[-1].latency_ms, 1),
        "scaled_left_at_end": scaled[-1].backlog,
        "scaled_caught_up_at_s": _caught_up(scaled, params),
        "capped_most_workers": max(r.workers for r in capped),
        "capped_peak_latency_ms": round(max(r.latency_ms for r in capped), 1),
        "capped_left_at_end": capped[-1].backlog,
        "capped_caught_up_at_s": _caught_up(capped, params),
    }
    series: dict[str, list[Any]] = {"second": [r.second for r in scaled], "arrived": offered}
    for name, rows in (("scaled", scaled), ("capped", capped)):
        series[f"{name}_workers"] = [r.workers for r in rows]
        series[f"{name}_backlog"] = [r.backlog for r in rows]
        series[f"{name}_done"] = [r.done for r in rows]
        series[f"{name}_latency_ms"] = [round(r.latency_ms, 1) for r in rows]
    tables = {
        "curve": {
            "concurrency": curve,
            "db_per_s": [round(throughput_per_s(c, db), 1) for c in curve],
            "latency_ms": [round(latency_ms(c, db), 1) for c in curve],
        }
    }
    return {"summary": summary, "series": series, "tables": tables}


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "peak": num(s["peak_db_per_s"]),
        "knee": num(s["knee_concurrency"]),
        "most": num(s["scaled_most_workers"]),
        "end": num(s["scaled_db_per_s_at_end"]),
        "latency": num(s["scaled_latency_ms_at_end"]),
        "left": num(s["scaled_left_at_end"]),
        "refused": num(s["scaled_refused_peak"]),
        "cap": num(p["cap"]),
        "capped_left": num(s["capped_left_at_end"]),
        "at": num(s["capped_caught_up_at_s"] or 0),
        "seconds": num(p["seconds"]),
    }
    lines = [
        gettext(
            "The database answers most, %(peak)s queries a second, with %(knee)s at once; "
            "past that every query slows the others down."
        )
        % values,
        gettext(
            "Scaled on the backlog alone: up to %(most)s workers; in the last second the "
            "database answered %(end)s queries, each took %(latency)s ms, and %(left)s jobs "
            "were waiting."
        )
        % values,
    ]
    if s["scaled_refused_peak"]:
        lines.append(
            gettext("Past the connection limit, %(refused)s workers got no connection at all.")
            % values
        )
    if s["capped_caught_up_at_s"] is not None:
        lines.append(
            gettext("Capped at %(cap)s workers: the queue is back to normal by second %(at)s.")
            % values
        )
    else:
        lines.append(
            gettext(
                "Capped at %(cap)s workers: %(capped_left)s jobs still waiting after %(seconds)s s."
            )
            % values
        )
    return lines


FIGURES = (
    Figure("knee_concurrency", gettext_noop("Queries at once at the knee"), "int"),
    Figure(
        "peak_db_per_s",
        gettext_noop("Most queries a second the database answers"),
        "float",
        gettext_noop("queries/s"),
    ),
    Figure("scaled_most_workers", gettext_noop("Most workers, scaled on the backlog alone"), "int"),
    Figure("scaled_refused_peak", gettext_noop("Most workers refused a connection"), "int"),
    Figure(
        "scaled_db_per_s_at_end",
        gettext_noop("Queries answered in the last second, scaled on the backlog alone"),
        "int",
        gettext_noop("queries/s"),
    ),
    Figure(
        "scaled_latency_ms_at_end",
        gettext_noop("One query's time in the last second, scaled on the backlog alone"),
        "float",
        "ms",
    ),
    Figure(
        "scaled_left_at_end",
        gettext_noop("Jobs waiting at the end, scaled on the backlog alone"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure(
        "scaled_caught_up_at_s",
        gettext_noop("Second the queue was back to normal, scaled on the backlog alone"),
        "int",
        "s",
        nullable=True,
    ),
    Figure("capped_most_workers", gettext_noop("Most workers, capped"), "int"),
    Figure("capped_peak_latency_ms", gettext_noop("Slowest query, capped"), "float", "ms"),
    Figure(
        "capped_left_at_end",
        gettext_noop("Jobs waiting at the end, capped"),
        "int",
        gettext_noop("jobs"),
    ),
    Figure(
        "capped_caught_up_at_s",
        gettext_noop("Second the queue was back to normal, capped"),
        "int",
        "s",
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
