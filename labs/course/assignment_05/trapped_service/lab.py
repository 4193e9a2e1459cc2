"""The trapped-service lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue import retry_snippets
from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values, yes_no
from labs.course.assignment_05.trapped_service import charts, run
from labs.text import gettext_noop

# "Only one layer retries" is the model's own retry_layers: 3 layers of 3 attempts make
# 27 attempts a call, one retrying layer makes 3. Each link below is offered when the run
# differs from it, so a run with three layers is shown the way back to one.
TRAPPED_TRY_NEXT = (
    TryNext(
        gettext_noop(
            "Let three layers retry, 3 attempts each (27 a call): how many attempts per request?"
        ),
        {"retry_layers": 3, "max_attempts": 3},
    ),
    TryNext(
        gettext_noop(
            "Let only one layer retry (27 attempts a call become 3): does the service get out?"
        ),
        {"retry_layers": 1, "max_attempts": 3},
    ),
    TryNext(
        gettext_noop(
            "Let no layer retry (1 attempt a call): does the service recover by itself now?"
        ),
        {"max_attempts": 1},
    ),
)


def trapped_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"wasted_pct": round(100 * summary["wasted_share"], 1)}


RECOVERS = yes_no(gettext_noop("Yes, it recovers"), gettext_noop("No, it stays trapped"))


TRAPPED_BECAUSE = gettext_noop(
    "The service can serve %(capacity_rps)s requests a second; retries made each request "
    "%(amplification)s attempts on average, %(wasted_pct)s%% of the work answered callers "
    "who had already given up, and the backlog ended at %(final_backlog)s."
)


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "recovered",
        gettext_noop("After the trigger ends, will the service recover?"),
        TRAPPED_BECAUSE,
        choices=RECOVERS,
        extra=trapped_extra,
    ),
    Prompt(
        "peak_backlog",
        gettext_noop("How deep will the backlog get?"),
        gettext_noop(
            "The spike sent %(spike_rps)s requests a second against a capacity of "
            "%(capacity_rps)s; %(retries)s retries came on top of %(original_requests)s "
            "requests and the backlog reached %(peak_backlog)s (the queue holds at most "
            "%(queue_limit)s waiting; the backlog also counts those the workers are serving)."
        ),
        high=5000,
        step=50,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="trapped-service",
    unit="assignment-05",
    title=gettext_noop("The service that will not recover"),
    intro=gettext_noop(
        "A spike fills the queue; callers time out and retry; the spike ends but the "
        "queue stays full. Reproduce the trap, then switch on recovery controls at a "
        "moment you choose and watch it drain without losing a payment."
    ),
    charts=charts.build,
    in_production=retry_snippets.trapped,
    before_after=True,
    try_next=TRAPPED_TRY_NEXT,
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Every recovery control switches on at the chosen second, all at once, as if someone "
        "noticed and acted in that instant; a real team takes minutes to notice and change a "
        "setting, and the service stays stuck meanwhile. Outside the trigger a request's time "
        "does not grow with the load, the workers never change in number (no autoscaling), and "
        "the network between callers, queue and workers takes no time. So the recovery times "
        "here are optimistic."
    ),
)
