"""The queued-read lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_07.queued_read import charts, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "queued_median_ms",
        gettext_noop("Through the queue, how long will the user wait for a read (median)?"),
        gettext_noop(
            "The read takes %(read_ms)s ms either way. Through the queue the page sees the "
            "answer only when it asks, every %(poll_ms)s ms, so the median wait was "
            "%(queued_median_ms)s ms against %(direct_median_ms)s ms directly."
        ),
        high=3000,
        step=10,
        unit=gettext_noop("ms"),
    ),
)


# What the numbers table and the compare page call the series (at the defaults the average
# and the longest wait are the same line, so no one trace names either).
SERIES_NAMES = {
    "direct_mean_ms": gettext_noop("answered directly: average"),
    "direct_worst_ms": gettext_noop("answered directly: longest"),
    "queued_mean_ms": gettext_noop("through the queue: average"),
    "queued_worst_ms": gettext_noop("through the queue: longest"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="queued-read",
    unit="lesson-07",
    title=gettext_noop("When not to queue: a read the user waits for"),
    intro=gettext_noop(
        "Students open their marks and wait for them. Answer each read directly, or put "
        "it on a queue for a worker and let the page ask for the answer: the same reads, "
        "the same number of threads and workers."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Let the page ask every 100 ms: does the queue catch up with the direct read?"
            ),
            {"poll_ms": 100},
        ),
        TryNext(
            gettext_noop(
                "Send 120 reads a second, more than 4 threads can do: which way waits longer?"
            ),
            {"reads_per_s": 120},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Reads arrive evenly spaced and every read takes exactly the same time, so reads wait "
        "in line only when they outnumber the threads. Putting the job on the queue and the "
        "page's repeated asks cost no thread time here, and no network time either; counting "
        "them would only make the queue look worse. So the queued waits here are a best case, "
        "and in a real system the queue's extra wait is, if anything, larger."
    ),
)
