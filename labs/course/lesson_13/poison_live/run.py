"""Lesson 13's poison messages on a real queue: parked in the DLQ after maxReceiveCount receives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.course.lesson_13.poison_messages.run import PDF_PARAMS
from labs.experiments import poison
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.live import QUEUE_KEYS
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, num, phrase

COUNTS = (1, 3, 5)  # the lesson's maxReceiveCounts, one real queue each
COUNT_LABELS = {
    1: (
        gettext_noop("Made with maxReceiveCount 1"),
        gettext_noop("In the DLQ with maxReceiveCount 1"),
        gettext_noop("Receives with maxReceiveCount 1"),
    ),
    3: (
        gettext_noop("Made with maxReceiveCount 3"),
        gettext_noop("In the DLQ with maxReceiveCount 3"),
        gettext_noop("Receives with maxReceiveCount 3"),
    ),
    5: (
        gettext_noop("Made with maxReceiveCount 5"),
        gettext_noop("In the DLQ with maxReceiveCount 5"),
        gettext_noop("Receives with maxReceiveCount 5"),
    ),
}

# How the catalogue runs this lab (declared in `RUNNER` below).
KEEPS_DLQ = True

PARAMS = (
    *PDF_PARAMS,
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        2,
        gettext_noop("Worker threads on each queue."),
        min=1,
        max=8,
        group=gettext_noop("The queue"),
    ),
    Param(
        "visibility_timeout_s",
        gettext_noop("Visibility timeout"),
        "float",
        0.3,
        gettext_noop(
            "A failed message comes back after this. Keep it longer than a good job takes, or "
            "good jobs are received twice too."
        ),
        min=0.1,
        max=2.0,
        group=gettext_noop("Redrive policy"),
        unit=gettext_noop("s"),
    ),
)

LIVE_KEYS = (*QUEUE_KEYS, "max_receives", "receives")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    unknown = sorted({n for n in params["poison"] if n >= params["messages"]})
    if unknown:
        return {
            "poison": gettext(
                "There is no pdf-%(first)s: the %(n)s PDFs are pdf-0 to pdf-%(last)s."
            )
            % {"first": unknown[0], "n": params["messages"], "last": params["messages"] - 1}
        }
    if len(set(params["poison"])) != len(params["poison"]):
        return {"poison": gettext("Name each poison PDF once.")}
    return {}


def expected(messages: int, poison_count: int, max_receives: int) -> tuple[int, int, int]:
    """The lesson's count: every good PDF made on its first receive, every poison one parked
    after `max_receives` receives."""
    good = messages - poison_count
    return good, poison_count, good + poison_count * max_receives


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """One real queue per maxReceiveCount, one after the other; the last one's DLQ is kept."""
    result = poison(
        params["messages"],
        params["poison"],
        COUNTS,
        workers=params["workers"],
        visibility_timeout_s=params["visibility_timeout_s"],
        redrive_rate_per_s=0,  # the student redrives from the queue panel instead
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s, runs = result["summary"], result["tables"]["runs"]
    summary: dict[str, Any] = {"messages": params["messages"], "poison": len(params["poison"])}
    matches = len(runs) == len(COUNTS)
    for row in runs:
        mr = row["max_receives"]
        summary |= {f"made_mr{mr}": row["made"], f"dlq_mr{mr}": len(row["dlq"])}
        summary[f"receives_mr{mr}"] = row["receives"]
        want = expected(params["messages"], len(params["poison"]), mr)
        matches = matches and (row["made"], len(row["dlq"]), row["receives"]) == want
    for mr in COUNTS:  # a run stopped early has no row for the later counts
        for key in (f"made_mr{mr}", f"dlq_mr{mr}", f"receives_mr{mr}"):
            summary.setdefault(key, None)
    summary["matches_lesson"] = matches
    last = runs[-1] if runs else None
    return {
        "summary": summary | run_footer(s),
        "series": result["series"],
        "tables": {
            "counts": table(
                gettext_noop("The lesson's table, on a real queue"),
                [
                    gettext_noop("maxReceiveCount"),
                    gettext_noop("made"),
                    gettext_noop("in the DLQ"),
                    gettext_noop("receives"),
                    gettext_noop("the lesson's count"),
                ],
                [
                    [
                        row["max_receives"],
                        row["made"],
                        len(row["dlq"]),
                        row["receives"],
                        "{} / {} / {}".format(
                            *expected(
                                params["messages"], len(params["poison"]), row["max_receives"]
                            )
                        ),
                    ]
                    for row in runs
                ],
            ),
            "parked": table(
                phrase(
                    gettext_noop("Parked in the DLQ with maxReceiveCount %(n)s"),
                    n=last["max_receives"] if last else "-",
                ),
                [gettext_noop("message"), gettext_noop("receives"), gettext_noop("last error")],
                [[p["id"], p["receives"], p["last_error"]] for p in (last or {}).get("parked", [])],
            ),
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        gettext(
            "%(n)s PDFs, %(poison)s of them poison, through a real queue for each maxReceiveCount."
        )
        % {"n": num(s["messages"]), "poison": num(s["poison"])}
    ]
    for mr in COUNTS:
        if s[f"made_mr{mr}"] is None:
            continue
        lines.append(
            gettext("maxReceiveCount %(mr)s: %(made)s made, %(dlq)s in the DLQ, %(rec)s receives.")
            % {
                "mr": mr,
                "made": num(s[f"made_mr{mr}"]),
                "dlq": num(s[f"dlq_mr{mr}"]),
                "rec": num(s[f"receives_mr{mr}"]),
            }
        )
    lines.append(
        gettext(
            "The same PDFs are parked whatever the count; a higher count only spends more "
            "receives (made / DLQ / receives as the lesson counts them)."
        )
        if s["matches_lesson"]
        else gettext(
            "Some counts differ from the lesson's: a visibility timeout shorter than a good "
            "job lets good messages be received twice, or the run stopped early."
        )
    )
    return lines


FIGURES = (
    Figure("messages", gettext_noop("PDFs"), "int", gettext_noop("messages")),
    Figure("poison", gettext_noop("Poison PDFs"), "int", gettext_noop("messages")),
    # One figure of each kind per maxReceiveCount, each label written out for the catalogue.
    *(
        Figure(f"{kind}_mr{mr}", label, "int", nullable=True)
        for mr, labels in COUNT_LABELS.items()
        for kind, label in zip(("made", "dlq", "receives"), labels, strict=True)
    ),
    Figure(
        "matches_lesson", gettext_noop("Made / DLQ / receives as the lesson counts them"), "bool"
    ),
    *FOOTER_FIGURES,
)


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: one queue per maxReceiveCount, one after the other, each waiting for its
    poison messages to come back that many times, a visibility timeout apart."""
    return wall_cost(sum(COUNTS) * params["visibility_timeout_s"], ("visibility_timeout_s",))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    keeps_dlq=KEEPS_DLQ,
    cost=cost,
)
