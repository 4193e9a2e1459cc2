"""The no-DLQ lab: its entry in the catalogue, the predictions it asks for, and its SQS settings."""

from __future__ import annotations

from typing import Any

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values, yes_no
from labs.course.lesson_12.no_dlq import charts, production, run
from labs.text import gettext_noop


def _figures_in_words(summary: Values, params: Values) -> dict[str, Any]:
    return {
        "arrived": params["arrive_per_s"] * params["duration_s"],
        "share_pct": round(100 * summary["poison_worker_share"], 1),
    }


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "final_backlog",
        gettext_noop("How many good messages will be waiting at the end of the run?"),
        gettext_noop(
            "%(arrived)s good messages arrived and %(good_done)s were done; "
            "%(final_backlog)s were still waiting at the end. The poison messages were "
            "received %(poison_receives)s times and took %(share_pct)s%% of the workers' "
            "time from second %(poison_at_s)s."
        ),
        high=6000,
        step=50,
        unit=gettext_noop("messages"),
        extra=_figures_in_words,
    ),
    Prompt(
        "drained",
        gettext_noop("Will the backlog of good messages be empty at the end?"),
        gettext_noop(
            "%(in_dlq)s poison messages reached the DLQ and they took %(share_pct)s%% of "
            "the workers' time from second %(poison_at_s)s; %(final_backlog)s good "
            "messages were waiting at the end."
        ),
        choices=yes_no(
            gettext_noop("Yes, the backlog empties"), gettext_noop("No, messages still wait")
        ),
        extra=_figures_in_words,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="no-dlq",
    unit="lesson-12",
    title=gettext_noop("No dead-letter queue: poison messages retried for ever"),
    intro=gettext_noop(
        "A few messages fail on every receive. Without a DLQ they come back after each "
        "visibility timeout and keep the workers from the good messages behind them."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Set maxReceiveCount to 3: do the poison messages leave, and does the "
                "backlog empty?"
            ),
            {"max_receives": 3},
        ),
        TryNext(
            gettext_noop(
                "Make it a FIFO queue with 1 good message a second (one group moves one "
                "message at a time): what happens behind the poison message?"
            ),
            {"fifo": True, "arrive_per_s": 1},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Good messages arrive in one lump at the start of each second, every one takes exactly "
        "the same time, and every poison receive fails after exactly the same time. A poison "
        "message comes back exactly one visibility timeout after it was received, so the "
        "pattern of receives here is neater than in a real queue. Each failed receive costs "
        "only worker time here; a real one may also call a dependency or write logs, so the "
        "harm of poison without a DLQ is, if anything, larger than shown."
    ),
)
