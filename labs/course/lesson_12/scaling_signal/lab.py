"""The scaling-signal lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_12.scaling_signal import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "cpu_left_at_end",
        gettext_noop("Scaling on CPU, how many jobs will still wait at the end?"),
        gettext_noop(
            "A worker waiting on I/O used %(cpu_peak_pct)s%% CPU, under the "
            "%(cpu_target_pct)s%% target, so the pool scaled on CPU never grew past "
            "%(cpu_most_workers)s and left %(cpu_left_at_end)s jobs; scaled on depth it "
            "grew to %(depth_most_workers)s and left %(depth_left_at_end)s."
        ),
        high=3000,
        step=50,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "age_oldest_age_s": gettext_noop("scaled on age: oldest message age (s)"),
    "cpu_oldest_age_s": gettext_noop("scaled on CPU: oldest message age (s)"),
    "depth_oldest_age_s": gettext_noop("scaled on queue depth: oldest message age (s)"),
    "per_worker_oldest_age_s": gettext_noop("scaled on backlog per worker: oldest message age (s)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="scaling-signal",
    unit="lesson-12",
    title=gettext_noop("Which signal should add workers? CPU, depth, backlog per worker, age"),
    intro=gettext_noop(
        "Workers that send SMS spend their time waiting on the network, not on the CPU. "
        "Four scalers watch the same burst: one reads CPU, one an alarm on the queue's "
        "depth, one the backlog per worker, one the oldest message's age."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Make the work CPU-bound (100% CPU when busy): does the CPU scaler wake up?"
            ),
            {"busy_cpu_pct": 100.0},
        ),
        TryNext(
            gettext_noop(
                "Let each scaler change the pool only every 3 s: how much higher is the peak?"
            ),
            {"cooldown_s": 3},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Each scaler sees the last second's numbers, and a worker added is working in that "
        "same second, with no start-up time. A busy worker here always uses the same share of "
        "its CPU, while a real worker's CPU is noisy. Real metrics often arrive a minute or "
        "more late, which slows every signal, so the clearing times here are optimistic for "
        "all four."
    ),
)
