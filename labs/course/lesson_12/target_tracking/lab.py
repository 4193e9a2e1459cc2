"""The target-tracking lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.target_tracking import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "by_cpu_peak_backlog",
        gettext_noop("Workers scaled by target tracking on CPU: how many messages at the peak?"),
        gettext_noop(
            "A busy worker showed at most %(busy_cpu_pct)s%% CPU against the "
            "%(cpu_target_pct)s%% target, so the CPU policy ran at most %(by_cpu_most_workers)s "
            "workers and the backlog peaked at %(by_cpu_peak_backlog)s; on backlog per "
            "instance it ran %(by_backlog_most_workers)s and peaked at %(by_backlog_peak_backlog)s."
        ),
        high=3000,
        step=50,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "api_waiting": gettext_noop("requests waiting for an API copy"),
    "cpu_pct": gettext_noop("workers' CPU under the CPU policy (%)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="target-tracking",
    unit="lesson-12",
    title=gettext_noop("Target tracking per tier: workers on backlog per instance or on CPU"),
    intro=gettext_noop(
        "Lesson 12's burst goes through two tiers: an API that answers and queues each job, "
        "scaled on CPU, and workers that do the jobs. The workers' target comes from the "
        "wait you accept: backlog per instance = acceptable wait ÷ time per message. Scale "
        "them on that, or on CPU, and read the tier table the run prints."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Make the workers wait on I/O (5% CPU when busy): what does the CPU policy do?"
            ),
            {"busy_cpu_pct": 5.0},
        ),
        TryNext(
            gettext_noop("Accept a 3 s wait: how many workers does backlog per instance need?"),
            {"acceptable_latency_s": 3},
        ),
        TryNext(
            gettext_noop("Give the API copies only 200 requests a second each: who waits now?"),
            {"api_per_instance": 200},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Both tiers decide each second from the second before, and a copy or a worker added "
        "works at once, with no start-up time. Real target tracking reads its metric a "
        "minute apart and waits out a warm-up before it counts a new instance, so both "
        "policies react sooner here than in production, and the backlog policy's clearing "
        "time is optimistic too. A busy worker's CPU is exactly the share you set, and the "
        "API tier's cost per answer is our own figure, not the lesson's."
    ),
)
