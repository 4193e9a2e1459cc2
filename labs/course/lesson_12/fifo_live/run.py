"""Lesson 12's standard and FIFO queues on the real Redis: order, duplicates, a blocked group."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments.fifo import SERIES, fifo_vs_standard
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
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
from labs.sim.fifo import measure, poison_job, simulate
from labs.text import gettext, gettext_noop, num, num_or_dash

KEEPS_DLQ = False

SECONDS = gettext_noop("s")

PARAMS = (
    Param(
        "students",
        gettext_noop("Students (message groups)"),
        "int",
        3,
        gettext_noop("Each student's updates must be applied in the order they were sent."),
        min=1,
        max=6,
        group=gettext_noop("The messages"),
    ),
    Param(
        "per_group",
        gettext_noop("Updates per student"),
        "int",
        6,
        gettext_noop("Student 1's second update is the poison one."),
        min=2,
        max=20,
        group=gettext_noop("The messages"),
    ),
    Param(
        "resend_every",
        gettext_noop("Resend every Nth update"),
        "int",
        4,
        gettext_noop("The producer missed the reply and sends it again; 0 never resends."),
        min=0,
        max=20,
        group=gettext_noop("The messages"),
    ),
    Param(
        "resend_after_s",
        gettext_noop("Resend after"),
        "float",
        0.05,
        gettext_noop("How long after the first send the copy goes."),
        min=0.0,
        max=3.0,
        group=gettext_noop("The messages"),
        unit=SECONDS,
    ),
    Param(
        "poison",
        gettext_noop("One poison update"),
        "bool",
        True,
        gettext_noop("Student 1's second update fails every time."),
        group=gettext_noop("The messages"),
    ),
    Param(
        "workers",
        gettext_noop("Workers on each queue"),
        "int",
        4,
        gettext_noop("Worker threads; each update takes 20 to 60 ms."),
        min=1,
        max=8,
        group=gettext_noop("The queues"),
    ),
    Param(
        "dedup_window_s",
        gettext_noop("FIFO deduplication window"),
        "float",
        1.0,
        gettext_noop("SQS keeps a deduplication id for 5 minutes; here about a second."),
        min=0.1,
        max=5.0,
        group=gettext_noop("The queues"),
        unit=SECONDS,
    ),
    Param(
        "visibility_timeout_s",
        gettext_noop("Visibility timeout"),
        "float",
        0.3,
        gettext_noop("A failed update comes back after this."),
        min=0.1,
        max=1.0,
        group=gettext_noop("The queues"),
        unit=SECONDS,
    ),
    Param(
        "max_receives",
        gettext_noop("maxReceiveCount"),
        "int",
        3,
        gettext_noop("Receives before the poison update goes to the DLQ."),
        min=1,
        max=5,
        group=gettext_noop("The queues"),
    ),
)

LIVE_KEYS = SERIES  # the experiment's readings, shown live as they come


def _rules(params: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values under the names the experiment and its model both take, so the
    two always play the same sends by the same rules."""
    return {
        "groups": params["students"],
        "per_group": params["per_group"],
        "workers": params["workers"],
        "resend_every": params["resend_every"],
        "resend_after_s": params["resend_after_s"],
        "dedup_window_s": params["dedup_window_s"],
        "poison": params["poison"],
        "visibility_timeout_s": params["visibility_timeout_s"],
        "max_receives": params["max_receives"],
    }


def modelled(params: Mapping[str, Any], seed: int) -> dict[str, dict[str, Any]]:
    """The model's figures for each queue: the same sends and rules, no timing noise."""
    out = {}
    for kind in ("standard", "fifo"):
        log, accepted = simulate(kind, **_rules(params), seed=seed)
        figures = measure(log, accepted, poison_job(params["poison"]))[0]
        out[kind] = figures | {"accepted": len(accepted)}
    return out


# What the model and the real queues must agree on exactly (the rest depends on timing).
EXACT = ("duplicates_done", "dlq", "poison_receives")


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """The same sends into both queues at once, each with its own workers."""
    result = fifo_vs_standard(
        **_rules(params),
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s, tables = result["summary"], result["tables"]
    model = modelled(params, seed)
    sends = model["standard"]["accepted"]  # a standard queue accepts every send
    model_dropped = sends - model["fifo"]["accepted"]
    matches = s["fifo_deduplicated"] == model_dropped and s["fifo_out_of_order"] == 0
    for kind in ("standard", "fifo"):
        matches = matches and all(s[f"{kind}_{k}"] == model[kind][k] for k in EXACT)
    fifo_rows = tables["fifo_groups"]
    poison_row = fifo_rows[0] if params["poison"] else None
    others = [r["finished_s"] for r in fifo_rows[1:]] if params["poison"] else []
    summary: dict[str, Any] = {
        "updates": s["updates"],
        "copies_sent": s["copies_sent"],
        **{
            f"{kind}_{name}": s[f"{kind}_{name}"]
            for kind in ("standard", "fifo")
            for name in ("out_of_order", "duplicates_done", "dlq", "blocked_s")
        },
        "fifo_deduplicated": s["fifo_deduplicated"],
        "poison_receives": s["fifo_poison_receives"],
        "fifo_poison_group_finished_s": poison_row["finished_s"] if poison_row else None,
        "fifo_other_groups_finished_s": max(others) if others else None,
        "model_standard_out_of_order": model["standard"]["out_of_order"],
        "model_fifo_blocked_s": model["fifo"]["blocked_s"],
        "matches_model": matches,
    }
    headings = [
        gettext_noop("student"),
        gettext_noop("applied"),
        gettext_noop("out of order"),
        gettext_noop("twice"),
        gettext_noop("last at (s)"),
    ]

    def per_student(kind: str) -> list[list[Any]]:
        return [
            [r["group"], r["done"], r["out_of_order"], r["duplicates"], r["finished_s"]]
            for r in tables[f"{kind}_groups"]
        ]

    return {
        "summary": summary | run_footer(s),
        "series": result["series"],
        "tables": {
            "standard_students": table(
                gettext_noop("Standard queue, student by student"),
                headings,
                per_student("standard"),
            ),
            "fifo_students": table(
                gettext_noop("FIFO queue, student by student"), headings, per_student("fifo")
            ),
            "model": table(
                gettext_noop("The real queues beside the model of the same rules"),
                [
                    "",
                    gettext_noop("standard"),
                    gettext_noop("model"),
                    gettext_noop("FIFO"),
                    gettext_noop("model"),
                ],
                [
                    [
                        label,
                        *(
                            _short(value)
                            for kind in ("standard", "fifo")
                            for value in (s[f"{kind}_{key}"], model[kind][key])
                        ),
                    ]
                    for key, label in (
                        ("out_of_order", gettext_noop("out of order")),
                        ("duplicates_done", gettext_noop("applied twice")),
                        ("dlq", gettext_noop("in the DLQ")),
                        ("blocked_s", gettext_noop("poison student's next update waited (s)")),
                    )
                ],
            ),
            "standard_done": tables["standard_done"],
            "fifo_done": tables["fifo_done"],
        },
    }


def _short(value: Any) -> Any:
    """Seconds to two places, so the table fits a phone."""
    return round(value, 2) if isinstance(value, float) else value


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    values = {
        "updates": num(s["updates"]),
        "groups": num(p["students"]),
        "copies": num(s["copies_sent"]),
        "s_late": num(s["standard_out_of_order"]),
        "s_twice": num(s["standard_duplicates_done"]),
        "f_late": num(s["fifo_out_of_order"]),
        "f_twice": num(s["fifo_duplicates_done"]),
        "dropped": num(s["fifo_deduplicated"]),
        "receives": num(s["poison_receives"]),
        "blocked": num_or_dash(s["fifo_blocked_s"]),
        "others": num_or_dash(s["fifo_other_groups_finished_s"]),
        "window": num(p["dedup_window_s"]),
    }
    lines = [
        gettext(
            "%(updates)s updates for %(groups)s students, %(copies)s of them sent twice, into a "
            "standard queue and a FIFO queue at once."
        )
        % values,
        gettext(
            "Standard queue: %(s_late)s updates applied before an earlier update of the same "
            "student; %(s_twice)s applied twice."
        )
        % values,
        gettext(
            "FIFO queue: %(f_late)s out of order; %(dropped)s copies dropped by their "
            "deduplication id; %(f_twice)s applied twice."
        )
        % values,
    ]
    if p["poison"] and s["fifo_blocked_s"] is not None:
        lines.append(
            gettext(
                "The poison update went to the DLQ after %(receives)s receives. On the FIFO "
                "queue it held student 1's later updates for %(blocked)s s; the other students "
                "were all done by %(others)s s."
            )
            % values
        )
    if p["poison"] and s["model_fifo_blocked_s"] is not None:
        lines.append(
            gettext(
                "The model of the same rules, without timing noise, holds student 1 for "
                "%(model)s s: maxReceiveCount × the visibility timeout, while a worker is free."
            )
            % {"model": num(s["model_fifo_blocked_s"])}
        )
    if not s["matches_model"]:
        lines.append(
            gettext(
                "Some counts differ from the model's: a busy machine can stretch the timing, "
                "or the run stopped early."
            )
        )
    if s["fifo_duplicates_done"]:
        lines.append(
            gettext(
                "Copies sent after the %(window)s s deduplication window are new messages to a "
                "FIFO queue: the worker must still be idempotent."
            )
            % values
        )
    return lines


FIGURES = (
    Figure("updates", gettext_noop("Updates"), "int"),
    Figure("copies_sent", gettext_noop("Updates sent twice"), "int"),
    Figure("standard_out_of_order", gettext_noop("Out of order, standard queue"), "int"),
    Figure("standard_duplicates_done", gettext_noop("Applied twice, standard queue"), "int"),
    Figure("standard_dlq", gettext_noop("In the DLQ, standard queue"), "int"),
    Figure(
        "standard_blocked_s",
        gettext_noop("Wait of the poison student's next update, standard queue"),
        "float",
        SECONDS,
        True,
    ),
    Figure("fifo_out_of_order", gettext_noop("Out of order, FIFO queue"), "int"),
    Figure("fifo_duplicates_done", gettext_noop("Applied twice, FIFO queue"), "int"),
    Figure("fifo_dlq", gettext_noop("In the DLQ, FIFO queue"), "int"),
    Figure(
        "fifo_blocked_s",
        gettext_noop("Wait of the poison student's next update, FIFO queue"),
        "float",
        SECONDS,
        True,
    ),
    Figure("fifo_deduplicated", gettext_noop("Copies the FIFO queue dropped"), "int"),
    Figure("poison_receives", gettext_noop("Receives of the poison update"), "int"),
    Figure(
        "fifo_poison_group_finished_s",
        gettext_noop("Student 1 done at, FIFO queue"),
        "float",
        SECONDS,
        True,
    ),
    Figure(
        "fifo_other_groups_finished_s",
        gettext_noop("Second the other students were done, FIFO queue"),
        "float",
        SECONDS,
        True,
    ),
    Figure(
        "model_standard_out_of_order",
        gettext_noop("Out of order in the model, standard queue"),
        "int",
    ),
    Figure(
        "model_fifo_blocked_s",
        gettext_noop("Wait of the poison student's next update in the model, FIFO queue"),
        "float",
        SECONDS,
        True,
    ),
    Figure("matches_model", gettext_noop("The exact counts match the model"), "bool"),
    *FOOTER_FIGURES,
)


# What one update costs a worker at most (the experiment's 40 ms, up to 150% of it).
WORK_S_AT_MOST = 0.06


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: every update (and resent copy) at its longest, one group per worker at
    a time, then the late copies' delay and the poison update's receives, a visibility
    timeout apart, while its group waits."""
    updates = params["students"] * params["per_group"]
    if params["resend_every"]:
        updates += updates // params["resend_every"]
    working_s = updates * WORK_S_AT_MOST / min(params["workers"], params["students"])
    poison_s = params["max_receives"] * params["visibility_timeout_s"] if params["poison"] else 0
    return wall_cost(
        working_s + params["resend_after_s"] + poison_s, ("per_group", "students", "max_receives")
    )


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    kind="experiment",
    keeps_dlq=KEEPS_DLQ,
    cost=cost,
)
