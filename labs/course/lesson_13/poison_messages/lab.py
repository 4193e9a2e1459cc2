"""The poison-messages lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.poison_messages import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "receives",
        gettext_noop("How many receives will the queue make in all?"),
        gettext_noop(
            "%(made)s good messages took one receive each; the %(dlq)s poison messages "
            "were received %(max_receives)s times each before going to the DLQ: "
            "%(receives_on_poison)s receives on them, %(receives)s in all."
        ),
        high=60,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "receive": gettext_noop("receive"),
    "receive_count": gettext_noop("receive count"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="poison-messages",
    unit="lesson-13",
    title=gettext_noop("Poison messages and maxReceiveCount"),
    intro=gettext_noop(
        "Some messages fail every time. After maxReceiveCount receives the queue moves "
        "them to a dead-letter queue, so the workers go on with the rest."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Set maxReceiveCount to 1: how many receives do the poison messages cost now?"
            ),
            {"max_receives": 1},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "A failed message goes straight to the back of the queue, poison messages fail every "
        "time, and every other message succeeds on its first receive. The visibility timeout a "
        "failed message waits out before it comes back is left out, so the receives here "
        "follow one another with no gap: the count of receives is exact, but a real queue "
        "takes longer to empty. Real poison can also be intermittent, succeeding on a later "
        "receive."
    ),
)
