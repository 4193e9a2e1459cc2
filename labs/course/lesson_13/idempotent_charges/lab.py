"""The idempotent-charges lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.charts import delivery as delivery_charts
from labs.course.lesson_13.idempotent_charges import run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "duplicates_plain",
        gettext_noop("Without an idempotency key, how many extra charges will there be?"),
        gettext_noop(
            "%(messages)s payments were delivered %(deliveries)s times; the plain handler "
            "charged on every delivery (%(plain_charges)s charges), the idempotent one "
            "once a payment (%(idempotent_charges)s)."
        ),
        high=20,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="idempotent-charges",
    unit="lesson-13",
    title=gettext_noop("Idempotent charges: one fee per payment, however often it arrives"),
    intro=gettext_noop(
        "Fee payments come through a queue that may deliver one more than once. "
        "Count the fees a plain worker and an idempotent worker charge."
    ),
    charts=delivery_charts.build,
    try_next=(
        TryNext(
            gettext_noop("Deliver every payment twice: how many fees does each worker charge?"),
            {"repeats": [1, 2, 3, 4]},
        ),
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "You choose which payments come back, and each repeat arrives straight after its first "
        "delivery. The idempotent consumer here records a payment as charged in the same "
        "instant it charges it, so a crash between the two cannot happen; in a real system it "
        "can, and the fee is charged twice unless the charge and the record are made together. "
        "Two workers holding the same payment at once are left out too, so the idempotent "
        "consumer's zero double charges is the best case."
    ),
)
