"""Lesson 07 on a real queue: N jobs, W workers at R jobs/s each, and a worker that dies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.experiments import fanout
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.live import QUEUE_KEYS
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.common import table
from labs.runners.experiment import (
    FOOTER_FIGURES,
    experiment_context,
    run_footer,
    wall_cost,
)
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop, ngettext, num, phrase

MAX_FORMULA_S = 40  # N / (W × R): with the redeliveries, a run stays under a minute

# How the catalogue runs this lab (declared in `RUNNER` below).
KEEPS_DLQ = True
USES_SEED = True
# Over 20 seeds: where the crash falls moves the measured time against the formula.
SPREAD = Spread("measured_over_formula")

PARAMS = (
    Param(
        "jobs",
        gettext_noop("Jobs (SMS to send)"),
        "int",
        60,
        gettext_noop("The request puts this many jobs on the queue in one go, then answers."),
        min=1,
        max=2000,
        group=gettext_noop("The fan-out"),
        limit=phrase(
            gettext_noop(
                "Together with the workers and their rate: jobs ÷ (workers × rate) may be at "
                "most %(most)s s, so the run stays under a minute."
            ),
            most=MAX_FORMULA_S,
        ),
    ),
    Param(
        "workers",
        gettext_noop("Workers"),
        "int",
        3,
        gettext_noop(
            "Worker threads taking jobs from the queue, each with its own Redis connection."
        ),
        min=1,
        max=16,
        group=gettext_noop("The fan-out"),
    ),
    Param(
        "rate_per_worker",
        gettext_noop("Jobs per second per worker"),
        "float",
        20.0,
        gettext_noop("Each call to the stand-in SMS provider takes 1/R seconds."),
        min=1,
        max=200,
        group=gettext_noop("The fan-out"),
        unit=gettext_noop("jobs/s"),
    ),
    Param(
        "crashes",
        gettext_noop("Workers that die mid-job"),
        "int",
        1,
        gettext_noop(
            "Deliveries (drawn from the seed) at which the worker dies; a new one starts at once."
        ),
        min=0,
        max=10,
        group=gettext_noop("A worker dies"),
        limit=gettext_noop("At most one crash per job."),
    ),
    Param(
        "crash_point",
        gettext_noop("Where it dies"),
        "choice",
        "after_effect",
        gettext_noop(
            "After sending the SMS but before acknowledging the job, or right after receiving it."
        ),
        choices=(
            ("after_effect", gettext_noop("after sending, before the ack")),
            ("after_receive", gettext_noop("after receiving, before sending")),
        ),
        group=gettext_noop("A worker dies"),
    ),
    Param(
        "visibility_timeout_s",
        gettext_noop("Visibility timeout"),
        "float",
        0.5,
        gettext_noop("A job not acknowledged within this time is handed out again."),
        min=0.1,
        max=5,
        group=gettext_noop("A worker dies"),
        unit=gettext_noop("s"),
    ),
    Param(
        "idempotent",
        gettext_noop("Idempotent consumer"),
        "bool",
        True,
        gettext_noop(
            "Claim each job's id in Redis before sending, so a second delivery sends nothing."
        ),
        group=gettext_noop("A worker dies"),
    ),
)

LIVE_KEYS = (*QUEUE_KEYS, "expected_done")


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    formula_s = params["jobs"] / (params["workers"] * params["rate_per_worker"])
    if formula_s > MAX_FORMULA_S:
        errors["jobs"] = gettext(
            "jobs ÷ (workers × rate) is %(s)s s; keep it at most %(most)s s (fewer jobs, more "
            "workers or a higher rate) so the run stays under a minute."
        ) % {"s": num(round(formula_s, 1)), "most": num(MAX_FORMULA_S)}
    if params["crashes"] > params["jobs"]:
        errors["crashes"] = gettext("At most one crash per job: %(n)s here.") % {
            "n": params["jobs"]
        }
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
                gettext_noop("Jobs whose worker died before acknowledging them"),
                [
                    gettext_noop("job"),
                    gettext_noop("deliveries"),
                    gettext_noop("SMS sent"),
                    gettext_noop("handed out again after"),
                ],
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
        gettext(
            "%(jobs)s jobs, %(workers)s workers at %(rate)s jobs/s each: the formula "
            "N / (W × R) says %(formula)s s; the real queue took %(measured)s s "
            "(%(ratio)s × the formula)."
        )
        % {
            "jobs": num(s["jobs"]),
            "workers": num(s["workers"]),
            "rate": num(s["rate_per_worker"]),
            "formula": f"{s['formula_s']:.2f}",
            "measured": f"{s['measured_s']:.2f}",
            "ratio": f"{s['measured_over_formula']:.2f}",
        },
    ]
    if s["crashes"]:
        words = {
            "n": num(s["crashes"]),
            "vt": f"{s['visibility_timeout_s']:g}",
            "dups": num(s["duplicates_delivered"]),
        }
        if s["crash_point"] == "after_effect":
            died = ngettext(
                "A worker died with a job in hand (its SMS sent, not acknowledged): it came back "
                "after the %(vt)s s visibility timeout and was delivered again (%(dups)s "
                "duplicate deliveries in all).",
                "%(n)s workers died with a job in hand (its SMS sent, not acknowledged): each "
                "came back after the %(vt)s s visibility timeout and was delivered again "
                "(%(dups)s duplicate deliveries in all).",
                s["crashes"],
            )
        else:
            died = ngettext(
                "A worker died with a job in hand (its SMS not yet sent, not acknowledged): it "
                "came back after the %(vt)s s visibility timeout and was delivered again "
                "(%(dups)s duplicate deliveries in all).",
                "%(n)s workers died with a job in hand (its SMS not yet sent, not acknowledged): "
                "each came back after the %(vt)s s visibility timeout and was delivered again "
                "(%(dups)s duplicate deliveries in all).",
                s["crashes"],
            )
        lines.append(died % words)
    dup = s["duplicate_effects"]
    sent = {"sent": num(s["sms_sent"]), "jobs": num(s["jobs"]), "dup": num(dup)}
    if s["idempotent"]:
        head = gettext("SMS sent: %(sent)s for %(jobs)s jobs with the idempotent consumer:")
    else:
        head = gettext(
            "SMS sent: %(sent)s for %(jobs)s jobs with the plain consumer (no idempotency):"
        )
    if dup == 0:
        tail = gettext("every job sent exactly once.")
    else:
        tail = ngettext(
            "%(dup)s parent got the same SMS twice.", "%(dup)s parents got the same SMS twice.", dup
        )
    lines.append(f"{head % sent} {tail % sent}")
    if s["lost"]:
        lines.append(
            gettext("%(n)s jobs were not done when the run stopped.") % {"n": num(s["lost"])}
        )
    return lines


FIGURES = (
    Figure("jobs", gettext_noop("Jobs sent"), "int", gettext_noop("jobs")),
    Figure("workers", gettext_noop("Workers"), "int", gettext_noop("workers")),
    Figure(
        "rate_per_worker",
        gettext_noop("Jobs per second per worker"),
        "float",
        gettext_noop("jobs/s"),
    ),
    Figure(
        "formula_s", gettext_noop("Time by the formula N / (W × R)"), "float", gettext_noop("s")
    ),
    Figure(
        "measured_s", gettext_noop("Time measured on the real queue"), "float", gettext_noop("s")
    ),
    Figure("measured_over_formula", gettext_noop("Measured ÷ formula"), "float"),
    Figure("done", gettext_noop("Jobs done"), "int", gettext_noop("jobs")),
    Figure("lost", gettext_noop("Jobs not done"), "int", gettext_noop("jobs")),
    Figure("deliveries", gettext_noop("Deliveries"), "int", gettext_noop("deliveries")),
    Figure(
        "duplicates_delivered",
        gettext_noop("Duplicate deliveries"),
        "int",
        gettext_noop("deliveries"),
    ),
    Figure("sms_sent", gettext_noop("SMS sent"), "int", gettext_noop("SMS")),
    Figure("duplicate_effects", gettext_noop("SMS sent twice"), "int", gettext_noop("SMS")),
    Figure("crashes", gettext_noop("Workers that died mid-job"), "int", gettext_noop("workers")),
    Figure("crash_point", gettext_noop("Where they died"), "str"),
    Figure("idempotent", gettext_noop("Idempotent consumer"), "bool"),
    Figure("visibility_timeout_s", gettext_noop("Visibility timeout"), "float", gettext_noop("s")),
    *FOOTER_FIGURES,
)


def cost(params: Mapping[str, Any]) -> Cost:
    """Wall seconds: the formula N / (W x R), plus one visibility timeout for the crashed
    jobs to come back (crashes overlap: the others wait out the same timeout)."""
    formula_s = params["jobs"] / (params["workers"] * params["rate_per_worker"])
    comeback_s = params["visibility_timeout_s"] if params["crashes"] else 0.0
    return wall_cost(formula_s + comeback_s, ("jobs", "visibility_timeout_s"))


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    kind="experiment",
    uses_seed=USES_SEED,
    keeps_dlq=KEEPS_DLQ,
    cost=cost,
    spread=SPREAD,
)
