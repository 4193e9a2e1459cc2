"""The fanout-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_07.fanout_live import charts, production, run
from labs.interface.live import QUEUE_NUMBERS, LiveView
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "duplicate_effects",
        gettext_noop("After the worker crashes, how many texts will go out twice?"),
        gettext_noop(
            "Worker crashes: %(crashes)s. Jobs delivered again after their text had gone: "
            "%(duplicates_delivered)s. Texts that went out twice: %(duplicate_effects)s "
            "(idempotent sending: %(idempotent)s)."
        ),
        high=20,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="fanout-live",
    unit="lesson-07",
    title=gettext_noop("On a real queue: fan-out time, and a worker that dies mid-job"),
    intro=gettext_noop(
        "Real jobs through a real Redis queue to real worker threads. Watch the queue "
        "drain live, set the time beside N / (W × R), and kill a worker before it "
        "acknowledges: the job comes back and is delivered twice, but sent once."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Switch the idempotent claim off: how many SMS go out twice?"),
            {"idempotent": False},
        ),
        TryNext(
            gettext_noop("Crash right after receiving instead: is any SMS sent twice now?"),
            {"crash_point": "after_receive"},
        ),
    ),
    live=LiveView(QUEUE_NUMBERS, charts.live_chart),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "The jobs go through a real Redis queue, but the workers are threads in one process "
        "and the stand-in SMS provider takes exactly the same time on every call. Real "
        "providers vary, limit how fast you may send and fail now and then, and real workers "
        "reach the queue over a network; so the measured time lands close to the formula here, "
        "and a real fan-out is slower. A crashed worker's replacement starts at once, where a "
        "real one takes seconds or more to start."
    ),
)
