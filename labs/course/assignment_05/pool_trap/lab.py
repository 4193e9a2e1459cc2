"""The pool-trap lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.assignment_05.pool_trap import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "plain_useful_per_s_after_slow",
        gettext_noop(
            "With no control, how many useful answers a second once the slow queries end?"
        ),
        gettext_noop(
            "The pool's %(pool_size)s connections serve %(capacity_per_s)s a second, "
            "%(slow_capacity_per_s)s while queries are slow; callers gave up after "
            "%(client_timeout_ms)s ms and retried, %(plain_peak_waiting)s waited at the "
            "peak, and afterwards %(plain_wasted_pct_after_slow)s%% of the work was wasted."
        ),
        high=200,
        step=5,
        unit=gettext_noop("answers/s"),
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "control_new_calls": gettext_noop("with the control: new calls"),
    "control_pool_timeouts": gettext_noop("with the control: pool timeouts"),
    "control_rejected": gettext_noop("with the control: refused"),
    "plain_new_calls": gettext_noop("without a control: new calls"),
    "plain_pool_timeouts": gettext_noop("without a control: pool timeouts"),
    "plain_rejected": gettext_noop("without a control: refused"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="pool-trap",
    unit="assignment-05",
    title=gettext_noop("A second loop: the connection pool that traps the service"),
    intro=gettext_noop(
        "Every request needs a database connection. While the database is slow, "
        "requests queue for one; callers give up and retry, but their old requests "
        "stay in line and still take a connection. Watch the pool stay busy for "
        "nobody, then switch on one control and watch it recover."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop("Stop the retries instead: is the line gone within 100 s?"),
            {"control": "no_retries", "horizon_s": 100},
        ),
        TryNext(
            gettext_noop(
                "Put a bulkhead of 20 waiters in from the start: does the trap even form?"
            ),
            {"control": "bulkhead", "switch_at_s": 0},
        ),
    ),
    in_production=production.snippets,
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Callers arrive evenly spaced and every query takes exactly the same time, slow during "
        "the slow spell and fast outside it. The database does not slow down as more "
        "connections are busy, and it forgets the slow spell the instant it ends; a real one "
        "often stays slower while its locks and caches settle, so the recovery times here are "
        "optimistic. Every retry waits the same fixed backoff, with no jitter."
    ),
)
