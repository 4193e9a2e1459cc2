"""The retried-payment lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_13.retried_payment import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "double_charges_without_key",
        gettext_noop("Without an idempotency key, how many extra charges will there be?"),
        gettext_noop(
            "%(late_answers)s answers came after the client's %(timeout_ms)s ms timeout and "
            "each was followed by a retry; the provider charged every call, so %(payments)s "
            "payments cost %(charges_without_key)s charges. With the key: "
            "%(charges_with_key)s."
        ),
        high=50,
    ),
)


# What the numbers table and the compare page call the series (a call is a charge without a
# key, so two of the chart's bars draw the same numbers and neither names its series alone).
SERIES_NAMES = {
    "payment": gettext_noop("payment"),
    "calls": gettext_noop("calls the client made"),
    "charges_without_key": gettext_noop("charges without a key"),
    "charges_with_key": gettext_noop("charges with a key"),
    "waited_ms": gettext_noop("wait for the answer (ms)"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="retried-payment",
    unit="lesson-13",
    title=gettext_noop("A retried payment: charged twice, or the first answer again"),
    intro=gettext_noop(
        "Parents pay a fee. Some of the provider's answers come after the client has "
        "stopped waiting, so the client tries again. Count the charges with no key, and "
        "with the payment's id as an idempotency key."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Make every payment's first answer late: how many extra charges?"),
            {"late": [1, 2, 3, 4]},
        ),
        TryNext(
            gettext_noop(
                "Let payment 4's answer be late 4 times: what is its parent told, and has the "
                "money gone?"
            ),
            {"late": [4, 4, 4, 4]},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "You choose which calls answer late, a late answer always comes after the timeout, and "
        "every call in time takes exactly the same time. Every retry reaches the provider and "
        "the provider always finds the key it has finished; a real one keeps keys only for a "
        "while, and two tries with the same key at the same moment need a lock. The network "
        "can also lose a call before the provider sees it, which this model leaves out."
    ),
)
