"""The answer-fast lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt
from labs.course.lesson_07.answer_fast import charts, production, run
from labs.text import gettext_noop

PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "failed_posts",
        gettext_noop("How many of the teachers' notices will fail to post?"),
        gettext_noop(
            "%(failed_posts)s of %(posts)s posts failed: the slowest request waited "
            "%(p99_ms)s ms against a call timeout of %(call_timeout_ms)s ms, and at the "
            "busiest moment %(busiest_web_threads)s of the %(web_threads)s web threads "
            "were taken."
        ),
        high=200,
    ),
)


# What the numbers table and the compare page call the series its charts do not name.
SERIES_NAMES = {
    "posts": gettext_noop("notices posted"),
    "queue_failed": gettext_noop("posts with an error, queued"),
    "request_threads_busy": gettext_noop("web threads busy, inside the request"),
    "request_posts_waiting": gettext_noop("posts waiting for a web thread, inside the request"),
    "queue_jobs_waiting": gettext_noop("jobs waiting in the queue"),
}


LAB = Lab.of(
    run.RUNNER,
    slug="answer-fast",
    unit="lesson-07",
    title=gettext_noop("Answer fast: send the texts inside the request, or queue them"),
    intro=gettext_noop(
        "Teachers post urgent notices, each a text to 2,000 parents. Send the texts "
        "while the teacher waits, or save the notice, queue one job and answer at "
        "once; then make the SMS provider slow or take it down."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop("Queue the texts instead: do the teachers still see errors?"),
            {"send": "queue"},
        ),
        TryNext(
            gettext_noop(
                "Make the provider slow instead of down: what happens to the web threads?"
            ),
            {"trouble": "slow"},
        ),
        TryNext(
            gettext_noop("Take the provider down for 10 minutes: does every notice still go out?"),
            {"send": "queue", "duration_s": 900, "down_until_s": 620},
        ),
    ),
    prompts=PROMPTS,
    series_names=SERIES_NAMES,
    leaves_out=gettext_noop(
        "Posts arrive evenly spaced and every provider call takes exactly the time you set, so "
        "nothing here is random. The queue itself never fails or fills up, and a failed call "
        "sends no texts at all, so a retry never sends a text twice. Real provider calls vary, "
        "and their slowest ones are slower than the average, so sending inside the request "
        "does worse in practice than here."
    ),
)
