"""Lesson 07 on a real queue: N jobs, W workers at R jobs/s each, and a worker that dies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.figures import Figure
from labs.catalogue.live import QUEUE_KEYS
from labs.catalogue.params import Param
from labs.experiments import fanout
from labs.runners.common import table
from labs.runners.experiment import FOOTER_FIGURES, experiment_context, run_footer
from labs.runs.progress import Progress
from labs.text import num

MAX_FORMULA_S = 40  # N / (W × R): with the redeliveries, a run stays under a minute

# How the catalogue runs this lab (read by `Lab.from_runner`).
KIND = "experiment"
KEEPS_DLQ = True
USES_SEED = True

PARAMS = (
    Param(
        "jobs", "Jobs (SMS to send)", "int", 60,
        "The request puts this many jobs on the queue in one go, then answers.",
        min=1, max=2000, group="The fan-out",
    ),
    Param(
        "workers", "Workers", "int", 3,
        "Worker threads taking jobs from the queue, each with its own Redis connection.",
        min=1, max=16, group="The fan-out",
    ),
    Param(
        "rate_per_worker", "Jobs per second per worker", "float", 20.0,
        "Each call to the stand-in SMS provider takes 1/R seconds.",
        min=1, max=200, group="The fan-out", unit="jobs/s",
    ),
    Param(
        "crashes", "Workers that die mid-job", "int", 1,
        "Deliveries (drawn from the seed) at which the worker dies; a new one starts at once.",
        min=0, max=10, group="A worker dies",
    ),
    Param(
        "crash_point", "Where it dies", "choice", "after_effect",
        "After sending the SMS but before acknowledging the job, or right after receiving it.",
        choices=(
            ("after_effect", "after sending, before the ack"),
            ("after_receive", "after receiving, before sending"),
        ),
        group="A worker dies",
    ),
    Param(
        "visibility_timeout_s", "Visibility timeout", "float", 0.5,
        "A job not acknowledged within this time is handed out again.",
        min=0.1, max=5, group="A worker dies", unit="s",
    ),
    Param(
        "idempotent", "Idempotent consumer", "bool", True,
        "Claim each job's id in Redis before sending, so a second delivery sends nothing.",
        group="A worker dies",
    ),
)  # fmt: skip

LIVE_KEYS = (*QUEUE_KEYS, "expected_done")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    formula_s = params["jobs"] / (params["workers"] * params["rate_per_worker"])
    if formula_s > MAX_FORMULA_S:
        errors["jobs"] = (
            f"jobs ÷ (workers × rate) is {formula_s:,.1f} s; keep it at most {MAX_FORMULA_S} s "
            "(fewer jobs, more workers or a higher rate) so the run stays under a minute."
        )
    if params["crashes"] > params["jobs"]:
        errors["crashes"] = f"At most one crash per job: {params['jobs']} here."
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Send the jobs through the real queue; crashes are drawn from `seed`."""
    result = fanout(
        params["jobs"],
        params["workers"],
        params["rate_per_worker"],
        crashes=params["crashes"],
        crash_point=params["crash_point"],
        visibility_timeout_s=params["visibility_timeout_s"],
        idempotent=params["idempotent"],
        seed=seed,
        context=experiment_context(progress, LIVE_KEYS, keep=KEEPS_DLQ),
    )
    s = result["summary"]
    crashed = result["tables"]["crashed_jobs"]
    return {
        "summary": {f.name: s[f.name] for f in FIGURES if f not in FOOTER_FIGURES} | run_footer(s),
        "series": result["series"],
        "tables": {
            "crashed": table(
                "Jobs whose worker died before acknowledging them",
                ["job", "deliveries", "SMS sent", "handed out again after"],
                [
                    [
                        row["id"],
                        row["deliveries"],
                        row["sms_sent"],
                        "—"
                        if row["redelivered_after_s"] is None
                        else f"{row['redelivered_after_s']:.2f} s",
                    ]
                    for row in crashed
                ],
            ),
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s = result["summary"]
    lines = [
        f"{num(s['jobs'])} jobs, {num(s['workers'])} workers at {num(s['rate_per_worker'])} "
        f"jobs/s each: the formula N / (W × R) says {s['formula_s']:.2f} s; the real queue "
        f"took {s['measured_s']:.2f} s ({s['measured_over_formula']:.2f} × the formula).",
    ]
    if s["crashes"]:
        n = s["crashes"]
        sent = "its SMS sent" if s["crash_point"] == "after_effect" else "its SMS not yet sent"
        lines.append(
            (
                "A worker died with a job in hand"
                if n == 1
                else f"{num(n)} workers died with a job in hand"
            )
            + f" ({sent}, not acknowledged): it came back after the "
            f"{s['visibility_timeout_s']:g} s visibility timeout and was delivered again "
            f"({num(s['duplicates_delivered'])} duplicate deliveries in all)."
        )
    dup = s["duplicate_effects"]
    consumer = "idempotent consumer" if s["idempotent"] else "plain consumer (no idempotency)"
    lines.append(
        f"SMS sent: {num(s['sms_sent'])} for {num(s['jobs'])} jobs with the {consumer}: "
        + (
            "every job sent exactly once."
            if dup == 0
            else f"{num(dup)} parent(s) got the same SMS twice."
        )
    )
    if s["lost"]:
        lines.append(f"{num(s['lost'])} jobs were not done when the run stopped.")
    if s["stopped_early"]:
        lines.append(f"The run stopped early ({s['stop_reason']}).")
    return lines


FIGURES = (
    Figure("jobs", "Jobs sent", "int", "jobs"),
    Figure("workers", "Workers", "int", "workers"),
    Figure("rate_per_worker", "Jobs per second per worker", "float", "jobs/s"),
    Figure("formula_s", "Time by the formula N / (W × R)", "float", "s"),
    Figure("measured_s", "Time measured on the real queue", "float", "s"),
    Figure("measured_over_formula", "Measured ÷ formula", "float"),
    Figure("done", "Jobs done", "int", "jobs"),
    Figure("lost", "Jobs not done", "int", "jobs"),
    Figure("deliveries", "Deliveries", "int", "deliveries"),
    Figure("duplicates_delivered", "Duplicate deliveries", "int", "deliveries"),
    Figure("sms_sent", "SMS sent", "int", "SMS"),
    Figure("duplicate_effects", "SMS sent twice", "int", "SMS"),
    Figure("crashes", "Workers that died mid-job", "int", "workers"),
    Figure("crash_point", "Where they died", "str"),
    Figure("idempotent", "Idempotent consumer", "bool"),
    Figure("visibility_timeout_s", "Visibility timeout", "float", "s"),
    *FOOTER_FIGURES,
)
