"""The retries-live lab: its entry in the catalogue and the predictions it asks for."""

from __future__ import annotations

from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values
from labs.course.lesson_13.retries_live import charts, production, run
from labs.interface.live import QUEUE_NUMBERS, LiveNumber, LiveView
from labs.text import gettext_noop


def _retries_extra(summary: Values, params: Values) -> dict[str, float]:
    return {
        "fail_pct": round(100 * params["fail_p"], 1),
        "expected_pct": round(100 * summary["expected_first_try_ok_share"], 1),
    }


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "first_try_ok_share",
        gettext_noop(
            "A payment is received again when every try of a receive fails. What share of "
            "receives will succeed at the first try?"
        ),
        gettext_noop(
            "Each call fails with a chance of %(fail_pct)s%%, so %(expected_pct)s%% of "
            "receives should succeed at the first try. The %(messages)s payments were "
            "received %(receives)s times in all, a small sample; this run made %(calls)s "
            "calls, of which %(failed_calls)s failed."
        ),
        percent=True,
        extra=_retries_extra,
    ),
)


LAB = Lab.of(
    run.RUNNER,
    slug="retries-live",
    unit="lesson-13",
    title=gettext_noop("On a real queue: retries with backoff and jitter against a flaky service"),
    intro=gettext_noop(
        "Workers charge fees through a payments service that fails at random, retrying "
        "each call with exponential backoff and full jitter (tenacity). Count which try "
        "worked, and check that no fee is charged twice."
    ),
    charts=charts.build,
    in_production=production.snippets,
    try_next=(
        TryNext(
            gettext_noop(
                "Make 8 in 10 calls to the service fail: how many payments end in the DLQ?"
            ),
            {"fail_p": 0.8},
        ),
        TryNext(
            gettext_noop(
                "Allow one attempt per receive: how many receives does a payment need now?"
            ),
            {"attempts": 1},
        ),
    ),
    live=LiveView(
        (*QUEUE_NUMBERS, LiveNumber("receives", gettext_noop("Receives"))),
        charts.live_chart,
    ),
    prompts=PROMPTS,
    leaves_out=gettext_noop(
        "Each call fails with a fixed chance, independently of every other call and of the "
        "load, and a failed call fails as quickly as a good one answers, rather than after a "
        "timeout. A real flaky service fails in runs and fails more when retries add load, so "
        "the share of payments that succeed here is optimistic and the time spent retrying is "
        "short. The workers are threads in one process rather than separate machines."
    ),
)
