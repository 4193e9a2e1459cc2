"""The one list of labs: slug → runner, charts, and the words a student reads first.

Adding a lab means adding one `Lab.from_runner(...)` entry here (and its runner and chart
modules); the runner module declares its params, figures, seed and kind once.
The web forms, the `lab` management command and the Celery task all read this list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.catalogue import production, production_calls, production_queues
from labs.catalogue.advice import TryNext
from labs.catalogue.lab import Lab
from labs.charts import delivery as delivery_charts
from labs.course.assignment_05.cold_cache import charts as cold_cache_charts
from labs.course.assignment_05.cold_cache import run as cold_cache_runner
from labs.course.assignment_05.drain_math import charts as drain_math_charts
from labs.course.assignment_05.drain_math import run as drain_math_runner
from labs.course.assignment_05.job_cost import charts as job_cost_charts
from labs.course.assignment_05.job_cost import run as job_cost_runner
from labs.course.assignment_05.phase_map import charts as phase_map_charts
from labs.course.assignment_05.phase_map import run as phase_map_runner
from labs.course.assignment_05.pool_trap import charts as pool_trap_charts
from labs.course.assignment_05.pool_trap import run as pool_trap_runner
from labs.course.assignment_05.trapped_live import charts as trapped_live_charts
from labs.course.assignment_05.trapped_live import run as trapped_live_runner
from labs.course.assignment_05.trapped_service import charts as trapped_service_charts
from labs.course.assignment_05.trapped_service import run as trapped_service_runner
from labs.course.lesson_07.answer_fast import charts as answer_fast_charts
from labs.course.lesson_07.answer_fast import run as answer_fast_runner
from labs.course.lesson_07.batching import charts as batching_charts
from labs.course.lesson_07.batching import run as batching_runner
from labs.course.lesson_07.busy_minute import charts as busy_minute_charts
from labs.course.lesson_07.busy_minute import run as busy_minute_runner
from labs.course.lesson_07.fanout import charts as fanout_charts
from labs.course.lesson_07.fanout import run as fanout_runner
from labs.course.lesson_07.fanout_live import charts as fanout_live_charts
from labs.course.lesson_07.fanout_live import run as fanout_live_runner
from labs.course.lesson_07.provider_outage import charts as provider_outage_charts
from labs.course.lesson_07.provider_outage import run as provider_outage_runner
from labs.course.lesson_12.burst_live import charts as burst_live_charts
from labs.course.lesson_12.burst_live import run as burst_live_runner
from labs.course.lesson_12.db_knee import charts as db_knee_charts
from labs.course.lesson_12.db_knee import run as db_knee_runner
from labs.course.lesson_12.drain import charts as drain_charts
from labs.course.lesson_12.drain import run as drain_runner
from labs.course.lesson_12.drain_compare import charts as drain_compare_charts
from labs.course.lesson_12.drain_compare import run as drain_compare_runner
from labs.course.lesson_12.fifo_live import charts as fifo_live_charts
from labs.course.lesson_12.fifo_live import run as fifo_live_runner
from labs.course.lesson_12.retention import charts as retention_charts
from labs.course.lesson_12.retention import run as retention_runner
from labs.course.lesson_12.scaling_signal import charts as scaling_signal_charts
from labs.course.lesson_12.scaling_signal import run as scaling_signal_runner
from labs.course.lesson_13.availability import charts as availability_charts
from labs.course.lesson_13.availability import run as availability_runner
from labs.course.lesson_13.backoff import charts as backoff_charts
from labs.course.lesson_13.backoff import run as backoff_runner
from labs.course.lesson_13.breaker import charts as breaker_charts
from labs.course.lesson_13.breaker import run as breaker_runner
from labs.course.lesson_13.breaker_live import charts as breaker_live_charts
from labs.course.lesson_13.breaker_live import run as breaker_live_runner
from labs.course.lesson_13.cascade import charts as cascade_charts
from labs.course.lesson_13.cascade import run as cascade_runner
from labs.course.lesson_13.deadline import charts as deadline_charts
from labs.course.lesson_13.deadline import run as deadline_runner
from labs.course.lesson_13.degradation import charts as degradation_charts
from labs.course.lesson_13.degradation import run as degradation_runner
from labs.course.lesson_13.health_checks import charts as health_checks_charts
from labs.course.lesson_13.health_checks import run as health_checks_runner
from labs.course.lesson_13.layered_retries import charts as layered_retries_charts
from labs.course.lesson_13.layered_retries import run as layered_retries_runner
from labs.course.lesson_13.poison_live import charts as poison_live_charts
from labs.course.lesson_13.poison_live import run as poison_live_runner
from labs.course.lesson_13.poison_messages import charts as redrive_charts
from labs.course.lesson_13.poison_messages import run as redrive_runner
from labs.course.lesson_13.retries_live import charts as retries_live_charts
from labs.course.lesson_13.retries_live import run as retries_live_runner
from labs.course.lesson_13.retry_storm import charts as retry_storm_charts
from labs.course.lesson_13.retry_storm import run as retry_storm_runner
from labs.course.lesson_13.timeouts import charts as timeouts_charts
from labs.course.lesson_13.timeouts import run as timeouts_runner
from labs.interface.live import QUEUE_NUMBERS, LiveNumber, LiveView
from labs.runners import delivery as delivery_runner
from labs.text import gettext_noop


def _burst_live_charts(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The burst's charts, beside the lesson's model of the same input."""
    return burst_live_charts.build(result, burst_live_runner.simulated(result["params"]))


def _burst_live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]):
    return burst_live_charts.live_chart(samples, burst_live_runner.simulated(params))


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


LABS: tuple[Lab, ...] = (
    # Lesson 07, in the lesson's order: speed, a busy spell, then delivering twice.
    Lab.from_runner(
        answer_fast_runner,
        slug="answer-fast",
        unit="lesson-07",
        title=gettext_noop("Answer fast: send the texts inside the request, or queue them"),
        intro=(
            gettext_noop(
                "Teachers post urgent notices, each a text to 2,000 parents. Send the texts "
                "while the teacher waits, or save the notice, queue one job and answer at "
                "once; then make the SMS provider slow or take it down."
            )
        ),
        charts=answer_fast_charts.build,
        in_production=production_queues.answer_fast,
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
                gettext_noop(
                    "Take the provider down for 10 minutes: does every notice still go out?"
                ),
                {"send": "queue", "duration_s": 900, "down_until_s": 620},
            ),
        ),
    ),
    Lab.from_runner(
        fanout_runner,
        slug="fanout",
        unit="lesson-07",
        title=gettext_noop("Fan-out time: how many workers for 5 million SMS?"),
        intro=(
            gettext_noop(
                "The request only puts jobs on a queue; the workers do the sending. Compare "
                "how long the work takes for several worker counts and speeds."
            )
        ),
        charts=fanout_charts.build,
        in_production=production_queues.fanout,
        try_next=(
            TryNext(
                gettext_noop("Halve the jobs to 2,500,000: does the time halve too?"),
                {"jobs": 2_500_000},
            ),
            TryNext(
                gettext_noop("Set the deadline to 30 minutes: how many workers does it take now?"),
                {"deadline_min": 30.0},
            ),
        ),
    ),
    Lab.from_runner(
        batching_runner,
        slug="batching",
        unit="lesson-07",
        title=gettext_noop("Send in batches: one call for many messages"),
        intro=gettext_noop(
            "Each call to the SMS provider costs a round trip. Put many messages in one "
            "call and see how the fan-out time falls, until the provider's own limit "
            "stops it: workers beyond that limit are only throttled."
        ),
        charts=batching_charts.build,
        in_production=production_queues.batching,
        try_next=(
            TryNext(
                gettext_noop("Send 500 messages per call: how much faster, and what stops it?"),
                {"batch": 500},
            ),
            TryNext(
                gettext_noop(
                    "Go back to one per call with 400 workers: do the extra workers help?"
                ),
                {"batch": 1, "workers": 400},
            ),
        ),
    ),
    Lab.from_runner(
        busy_minute_runner,
        slug="busy-minute",
        unit="lesson-07",
        title=gettext_noop("A busy minute: the backlog builds, then clears"),
        intro=(
            gettext_noop(
                "Jobs arrive faster than the workers finish them for a while. Watch the queue "
                "grow during the busy spell and empty after it."
            )
        ),
        charts=busy_minute_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Give the workers 3,000 jobs a second: does any backlog build?"),
                {"capacity_per_s": 3000},
            ),
            TryNext(
                gettext_noop(
                    "Let 2,000 a second arrive after the spell: how long until the backlog clears?"
                ),
                {"arrive_after_per_s": 2000, "after_s": 90},
            ),
        ),
    ),
    Lab.from_runner(
        delivery_runner.SMS,
        slug="at-least-once",
        unit="lesson-07",
        title=gettext_noop("At-least-once delivery: the same SMS twice"),
        intro=(
            gettext_noop(
                "The queue hands one message out again after a worker crashed. Count what a "
                "plain consumer and an idempotent consumer send."
            )
        ),
        charts=delivery_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Hand out every SMS once more: how many does each consumer send?"),
                {"repeats": [1, 2, 3]},
            ),
        ),
    ),
    Lab.from_runner(
        fanout_live_runner,
        slug="fanout-live",
        unit="lesson-07",
        title=gettext_noop("On a real queue: fan-out time, and a worker that dies mid-job"),
        intro=(
            gettext_noop(
                "Real jobs through a real Redis queue to real worker threads. Watch the queue "
                "drain live, set the time beside N / (W × R), and kill a worker before it "
                "acknowledges: the job comes back and is delivered twice, but sent once."
            )
        ),
        charts=fanout_live_charts.build,
        in_production=production_queues.fanout_live,
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
        live=LiveView(QUEUE_NUMBERS, fanout_live_charts.live_chart),
    ),
    Lab.from_runner(
        provider_outage_runner,
        slug="provider-outage",
        unit="lesson-07",
        title=gettext_noop("On a real queue: a 10-minute outage at the SMS provider"),
        intro=gettext_noop(
            "The front keeps accepting jobs while the provider is down: they wait in the "
            "queue, the oldest job's age climbs past the alarm, and after the provider comes "
            "back the workers catch up. Then give the workers more than the provider allows."
        ),
        charts=provider_outage_charts.build,
        live=LiveView(
            (
                LiveNumber("t_min", gettext_noop("Lesson minute")),
                LiveNumber("visible", gettext_noop("Waiting"), gettext_noop("jobs")),
                LiveNumber("done", gettext_noop("Sent"), gettext_noop("jobs")),
                LiveNumber("oldest_age_min", gettext_noop("Oldest job"), gettext_noop("min")),
                LiveNumber("throttled", gettext_noop("Refused with 429")),
            ),
            provider_outage_charts.live_chart,
        ),
        try_next=(
            TryNext(
                gettext_noop(
                    "Set maxReceiveCount to 5: does the outage push healthy jobs into the DLQ?"
                ),
                {"max_receives": 5},
            ),
            TryNext(
                gettext_noop(
                    "Run 12 workers against the provider's limit of 4: faster, or only 429s?"
                ),
                {"workers": 12},
            ),
        ),
        in_production=production.oldest_age_alarm,
    ),
    # Lesson 12.
    Lab.from_runner(
        drain_runner,
        slug="drain",
        unit="lesson-12",
        title=gettext_noop("Drain a burst: fixed workers or workers scaled on the backlog"),
        intro=(
            gettext_noop(
                "Jobs arrive second by second; each worker finishes a fixed number a second. "
                "Choose how many workers run and watch the backlog build and clear."
            )
        ),
        charts=drain_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Switch to a fixed pool of 3 workers: does the backlog still clear?"),
                {"rule": "fixed", "fixed_workers": 3},
            ),
            TryNext(
                gettext_noop("Allow at most 4 workers: how much later is the queue empty?"),
                {"max_workers": 4},
            ),
        ),
        in_production=production.keda_backlog,
    ),
    Lab.from_runner(
        drain_compare_runner,
        slug="drain-compare",
        unit="lesson-12",
        title=gettext_noop("Compare scaling rules side by side"),
        intro=(
            gettext_noop(
                "The same burst through several rules at once: fixed pools and pools scaled "
                "on the backlog. Which keeps the queue short, and which costs fewest workers?"
            )
        ),
        charts=drain_compare_charts.build,
        in_production=production_queues.drain_compare,
        try_next=(
            TryNext(
                gettext_noop("Add a fixed pool of 10: does it cost more than the backlog rules?"),
                {"fixed_pools": [3, 8, 10]},
            ),
            TryNext(
                gettext_noop(
                    "Keep at least 3 workers in every backlog rule: which rule is cheapest now?"
                ),
                {"min_workers": 3},
            ),
        ),
    ),
    Lab.from_runner(
        scaling_signal_runner,
        slug="scaling-signal",
        unit="lesson-12",
        title=gettext_noop("Which signal should add workers? CPU, depth, backlog per worker, age"),
        intro=gettext_noop(
            "Workers that send SMS spend their time waiting on the network, not on the CPU. "
            "Four scalers watch the same burst: one reads CPU, one an alarm on the queue's "
            "depth, one the backlog per worker, one the oldest message's age."
        ),
        charts=scaling_signal_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Make the work CPU-bound (100% CPU when busy): does the CPU scaler wake up?"
                ),
                {"busy_cpu_pct": 100.0},
            ),
            TryNext(
                gettext_noop(
                    "Let each scaler change the pool only every 3 s: how much higher is the peak?"
                ),
                {"cooldown_s": 3},
            ),
        ),
        in_production=production.scaling_signal,
    ),
    Lab.from_runner(
        db_knee_runner,
        slug="db-knee",
        unit="lesson-12",
        title=gettext_noop("More workers than the database can take: the knee"),
        intro=gettext_noop(
            "Every job is one query. The scaler adds workers while the queue grows, but "
            "past its knee the database answers fewer queries the more it is sent. Compare "
            "the scaler alone with the same scaler capped at the knee."
        ),
        charts=db_knee_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Cap the workers at 30 instead: past the knee, does the queue still clear?"
                ),
                {"cap": 30},
            ),
            TryNext(
                gettext_noop("Let the scaler start 150 workers: how many find no connection?"),
                {"max_workers": 150},
            ),
        ),
        in_production=production.worker_cap,
    ),
    Lab.from_runner(
        burst_live_runner,
        slug="burst-live",
        unit="lesson-12",
        title=gettext_noop(
            "On real queues: the burst, fixed workers against workers scaled on backlog"
        ),
        intro=(
            gettext_noop(
                "The lesson's burst played into two real Redis queues, faster than in the lesson. "
                "One pool is fixed; a controller resizes the other from the real queue's depth. "
                "Watch both backlogs and the oldest message's age next to the simulation."
            )
        ),
        charts=_burst_live_charts,
        in_production=production_queues.burst_live,
        try_next=(
            TryNext(
                gettext_noop("Fix the pool at 8 workers: does it keep up with the scaled pool?"),
                {"fixed_workers": 8},
            ),
            TryNext(
                gettext_noop(
                    "Cap the scaled pool at 4 workers: how old does its oldest message get?"
                ),
                {"max_workers": 4},
            ),
        ),
        live=LiveView(
            (
                LiveNumber("second", gettext_noop("Lesson second")),
                LiveNumber("backlog_fixed", gettext_noop("Backlog, fixed pool"), "jobs"),
                LiveNumber("backlog_scaled", gettext_noop("Backlog, scaled pool"), "jobs"),
                LiveNumber("workers_fixed", gettext_noop("Workers, fixed pool")),
                LiveNumber("workers_scaled", gettext_noop("Workers, scaled pool")),
                LiveNumber(
                    "oldest_age_lesson_s_fixed",
                    gettext_noop("Oldest message, fixed"),
                    "lesson s",
                    gettext_noop("empty"),
                ),
                LiveNumber(
                    "oldest_age_lesson_s_scaled",
                    gettext_noop("Oldest message, scaled"),
                    "lesson s",
                    gettext_noop("empty"),
                ),
                LiveNumber("done_fixed", gettext_noop("Done, fixed pool"), "jobs"),
                LiveNumber("done_scaled", gettext_noop("Done, scaled pool"), "jobs"),
            ),
            _burst_live_chart,
        ),
    ),
    Lab.from_runner(
        fifo_live_runner,
        slug="fifo-live",
        unit="lesson-12",
        title=gettext_noop(
            "On real queues: standard or FIFO? Order, duplicates and a blocked group"
        ),
        intro=gettext_noop(
            "The same updates for a few students go into a standard queue and a FIFO queue "
            "at once; some are sent twice and one can never be applied. See which queue "
            "keeps each student's order, which drops the copies, and whom the poison update "
            "holds up."
        ),
        charts=fifo_live_charts.build,
        live=LiveView(
            (
                LiveNumber("standard_done", gettext_noop("Applied, standard")),
                LiveNumber("fifo_done", gettext_noop("Applied, FIFO")),
                LiveNumber("standard_dlq", gettext_noop("DLQ, standard")),
                LiveNumber("fifo_dlq", gettext_noop("DLQ, FIFO")),
                LiveNumber("fifo_blocked_groups", gettext_noop("FIFO groups waiting")),
            ),
            fifo_live_charts.live_chart,
        ),
        try_next=(
            TryNext(
                gettext_noop(
                    "Resend each copy 1.5 s later, past the dedup window: what does FIFO do?"
                ),
                {"resend_after_s": 1.5},
            ),
            TryNext(
                gettext_noop(
                    "Set maxReceiveCount to 5: how long does the poison update hold its student?"
                ),
                {"max_receives": 5},
            ),
        ),
        in_production=production.sqs_fifo,
    ),
    Lab.from_runner(
        retention_runner,
        slug="retention",
        unit="lesson-12",
        title=gettext_noop("Retention: old messages are deleted, and a DLQ must keep them longer"),
        intro=gettext_noop(
            "The workers stop for a few days while messages keep arriving. Watch the oldest "
            "message's age against the queue's retention, and see how long the poison "
            "messages parked afterwards really stay in the DLQ."
        ),
        charts=retention_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Give the DLQ the same 4 days as its queue: are parked messages lost now?"
                ),
                {"dlq_retention_h": 96},
            ),
            TryNext(
                gettext_noop("Stop the workers for 5 days: what happens to the oldest messages?"),
                {"outage_h": 120},
            ),
            TryNext(
                gettext_noop(
                    "Same 4-day DLQ on a FIFO queue: does the clock restarting in the DLQ help?"
                ),
                {"dlq_retention_h": 96, "queue_type": "fifo"},
            ),
        ),
        in_production=production.sqs_retention,
    ),
    # Lesson 13, in the lesson's order.
    Lab.from_runner(
        timeouts_runner,
        slug="timeouts",
        unit="lesson-13",
        title=gettext_noop("Timeouts and Little's law: how many requests get stuck"),
        intro=(
            gettext_noop(
                "A stuck service holds every caller that waits for it. Count the stuck "
                "requests for different waits, and see what a timeout does to each call."
            )
        ),
        charts=timeouts_charts.build,
        in_production=production_calls.timeouts,
        try_next=(
            TryNext(
                gettext_noop("Lower the timeout to 200 ms: which calls time out now?"),
                {"timeout_ms": 200.0},
            ),
        ),
    ),
    Lab.from_runner(
        deadline_runner,
        slug="deadline",
        unit="lesson-13",
        title=gettext_noop("Timeouts inside one deadline, and work done for nobody"),
        intro=gettext_noop(
            "Each try waits to connect and to read, and all the tries share one total "
            "deadline. Watch the last try get only what is left, and the service go on "
            "working after its caller has given up."
        ),
        charts=deadline_charts.build,
        in_production=production_calls.deadline,
        try_next=(
            TryNext(
                gettext_noop("Give the service a timeout of 1.5 s: how much wasted work is left?"),
                {"callee_timeout_s": 1.5},
            ),
            TryNext(
                gettext_noop(
                    "Make the service unreachable: how many tries fit in the deadline now?"
                ),
                {"connect_fails": True},
            ),
        ),
    ),
    Lab.from_runner(
        backoff_runner,
        slug="backoff",
        unit="lesson-13",
        title=gettext_noop("Backoff: the wait before each retry, with and without jitter"),
        intro=(
            gettext_noop(
                "Each retry waits twice as long as the one before, up to a cap. Jitter adds a "
                "random part; compare the three kinds."
            )
        ),
        charts=backoff_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Lower the cap to 800 ms: from which retry do the waits stop growing?"
                ),
                {"cap_ms": 800.0},
            ),
        ),
        in_production=production.retries,
    ),
    Lab.from_runner(
        retry_storm_runner,
        slug="retry-storm",
        unit="lesson-13",
        title=gettext_noop("Retry storm: many clients retrying together"),
        intro=(
            gettext_noop(
                "Hundreds of clients fail at the same moment and retry. Count the retries "
                "that hit the service in each 10 ms slot, without jitter and with it."
            )
        ),
        charts=retry_storm_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Try equal jitter: is the busiest slot calmer or busier than with full jitter?"
                ),
                {"jitter": "equal"},
            ),
        ),
        in_production=production.retries,
    ),
    Lab.from_runner(
        layered_retries_runner,
        slug="layered-retries",
        unit="lesson-13",
        title=gettext_noop("Retries at every layer: how many calls does one click make?"),
        intro=gettext_noop(
            "A click passes through several layers before it reaches the service, and each "
            "layer may retry. Count the calls that reach a sick service when every layer "
            "retries, when only one does, and when retries come out of a budget."
        ),
        charts=layered_retries_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Add a fourth layer: how many calls reach the service now?"),
                {"layers": 4},
            ),
            TryNext(
                gettext_noop("Let only 10 percent of calls fail: does the choice still matter?"),
                {"failure_pct": 10.0},
            ),
        ),
        in_production=production.one_retrying_layer,
    ),
    Lab.from_runner(
        breaker_runner,
        slug="breaker",
        unit="lesson-13",
        title=gettext_noop("Circuit breaker over a dependency that goes down"),
        intro=(
            gettext_noop(
                "A caller calls a dependency once a second through a breaker. Pick when the "
                "dependency is down and see which calls wait, which fail fast and when "
                "service returns."
            )
        ),
        charts=breaker_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Open after a single failure: how many calls fail fast now?"),
                {"threshold": 1},
            ),
            TryNext(
                gettext_noop(
                    "Stay open for 60 s: how long after the dependency is back do calls still fail?"
                ),
                {"open_s": 60},
            ),
        ),
        in_production=production.breaker,
    ),
    Lab.from_runner(
        degradation_runner,
        slug="degradation",
        unit="lesson-13",
        title=gettext_noop("Graceful degradation: an older page instead of an error"),
        intro=(
            gettext_noop(
                "While the grades service is down, show the last saved results page, marked "
                "with its age. Compare what parents see with and without this fallback."
            )
        ),
        charts=degradation_charts.build,
        in_production=production_calls.degradation,
        try_next=(
            TryNext(
                gettext_noop(
                    "Refuse pages older than 2 minutes: what do parents see during the outage?"
                ),
                {"limit_age": True, "max_stale_s": 120},
            ),
        ),
    ),
    Lab.from_runner(
        cascade_runner,
        slug="cascade",
        unit="lesson-13",
        title=gettext_noop("One stuck dependency stalls the whole service"),
        intro=(
            gettext_noop(
                "Half of a service's pages call a grades service, and it gets stuck for 30 s. "
                "Its calls hold every thread, so the other pages wait too. Switch on the four "
                "tools one at a time and watch which one frees what."
            )
        ),
        charts=cascade_charts.build,
        in_production=production_calls.cascade,
        try_next=(
            TryNext(
                gettext_noop(
                    "Add a 1 s timeout: do the pages that never call the dependency come back?"
                ),
                {"use_timeout": True},
            ),
            TryNext(
                gettext_noop(
                    "Add a breaker and a fallback too: how many calls still reach the sick service?"
                ),
                {"use_timeout": True, "backoff": True, "breaker": True, "fallback": True},
            ),
        ),
    ),
    Lab.from_runner(
        delivery_runner.PAYMENTS,
        slug="idempotent-charges",
        unit="lesson-13",
        title=gettext_noop("Idempotent charges: one fee per payment, however often it arrives"),
        intro=(
            gettext_noop(
                "Fee payments come through a queue that may deliver one more than once. "
                "Count the fees a plain worker and an idempotent worker charge."
            )
        ),
        charts=delivery_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Deliver every payment twice: how many fees does each worker charge?"),
                {"repeats": [1, 2, 3, 4]},
            ),
        ),
    ),
    Lab.from_runner(
        redrive_runner,
        slug="poison-messages",
        unit="lesson-13",
        title=gettext_noop("Poison messages and maxReceiveCount"),
        intro=(
            gettext_noop(
                "Some messages fail every time. After maxReceiveCount receives the queue moves "
                "them to a dead-letter queue, so the workers go on with the rest."
            )
        ),
        charts=redrive_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Set maxReceiveCount to 1: how many receives do the poison messages cost now?"
                ),
                {"max_receives": 1},
            ),
        ),
        in_production=production.sqs_redrive,
    ),
    Lab.from_runner(
        health_checks_runner,
        slug="health-checks",
        unit="lesson-13",
        title=gettext_noop("Health checks: shallow or deep?"),
        intro=gettext_noop(
            "Several instances share one database; one of them is sick and the database "
            "blips. Compare a check that asks only whether the process is up with one "
            "that also asks the database."
        ),
        charts=health_checks_charts.build,
        in_production=production_calls.health_checks,
        try_next=(
            TryNext(
                gettext_noop(
                    "Send to the instance with the fewest requests in progress: how much "
                    "traffic does the sick one get?"
                ),
                {"balance": "least_outstanding"},
            ),
            TryNext(
                gettext_noop(
                    "Trust an instance again after one passing check: how long is nobody "
                    "in service now?"
                ),
                {"healthy_after": 1},
            ),
        ),
    ),
    Lab.from_runner(
        availability_runner,
        slug="availability",
        unit="lesson-13",
        title=gettext_noop("Availability: copies in parallel, a chain in series"),
        intro=(
            gettext_noop(
                "Copies in different buildings (AZs) raise availability; every service a "
                "request needs lowers it. Compare both, and a chain made of copies."
            )
        ),
        charts=availability_charts.build,
        try_next=(
            TryNext(
                gettext_noop(
                    "Share nothing between the AZs (set it to 100): what do the copies buy now?"
                ),
                {"shared_pct": 100.0},
            ),
            TryNext(
                gettext_noop(
                    "Add copies up to 6 while the dependency stays shared: does the total move?"
                ),
                {"copies": 6},
            ),
        ),
    ),
    # Lesson 13 on a real queue: the same tools, measured.
    Lab.from_runner(
        poison_live_runner,
        slug="poison-live",
        unit="lesson-13",
        title=gettext_noop("On a real queue: poison messages reach the DLQ"),
        intro=(
            gettext_noop(
                "PDF jobs through a real Redis queue for maxReceiveCount 1, 3 and 5. The poison "
                "ones are parked in the dead-letter queue with their receive count and last "
                "error; afterwards, open the DLQ in the queue panel and redrive it."
            )
        ),
        charts=poison_live_charts.build,
        in_production=production_queues.poison_live,
        try_next=(
            TryNext(
                gettext_noop(
                    "Poison three PDFs instead of two: does anything but them reach the DLQ?"
                ),
                {"poison": [1, 3, 7]},
            ),
            TryNext(
                gettext_noop("Use 4 workers: do the good PDFs finish sooner?"),
                {"workers": 4},
            ),
        ),
        live=LiveView(
            (
                LiveNumber("max_receives", gettext_noop("maxReceiveCount now")),
                *QUEUE_NUMBERS[:-1],
                LiveNumber("receives", gettext_noop("Receives")),
            ),
            poison_live_charts.live_chart,
        ),  # fmt: skip
    ),
    Lab.from_runner(
        retries_live_runner,
        slug="retries-live",
        unit="lesson-13",
        title=gettext_noop(
            "On a real queue: retries with backoff and jitter against a flaky service"
        ),
        intro=(
            gettext_noop(
                "Workers charge fees through a payments service that fails at random, retrying "
                "each call with exponential backoff and full jitter (tenacity). Count which try "
                "worked, and check that no fee is charged twice."
            )
        ),
        charts=retries_live_charts.build,
        in_production=production_queues.retries_live,
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
            retries_live_charts.live_chart,
        ),
    ),
    Lab.from_runner(
        breaker_live_runner,
        slug="breaker-live",
        unit="lesson-13",
        title=gettext_noop("On a real queue: one circuit breaker shared by all workers"),
        intro=(
            gettext_noop(
                "Every worker keeps the breaker's state in Redis, so when calls to the payments "
                "service keep failing it opens for all of them at once. Watch its real state "
                "change through an outage."
            )
        ),
        charts=breaker_live_charts.build,
        in_production=production_calls.breaker_live,
        try_next=(
            TryNext(
                gettext_noop("Open after 2 failures: how many calls reach the failing service?"),
                {"fail_max": 2},
            ),
            TryNext(
                gettext_noop(
                    "Stay open for 2 s: how long after the service is back do payments still wait?"
                ),
                {"reset_timeout_s": 2.0},
            ),
        ),
        live=LiveView(
            (LiveNumber("breaker_state", gettext_noop("Breaker")), *QUEUE_NUMBERS),
            breaker_live_charts.live_chart,
        ),
    ),
    # Assignment 05: the trap and its way out, the map of what traps it, two follow-ups.
    Lab.from_runner(
        drain_math_runner,
        slug="drain-math",
        unit="assignment-05",
        title=gettext_noop("How long until the queue is empty?"),
        intro=gettext_noop(
            "Jobs are waiting, more keep arriving and the workers finish a fixed number a "
            "second. Divide the backlog by what the workers gain each second, and see "
            "what happens when they gain nothing."
        ),
        charts=drain_math_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Let 60 jobs arrive each second: does the queue ever empty?"),
                {"arrivals_per_s": 60.0},
            ),
            TryNext(
                gettext_noop(
                    "Let 45 arrive each second: how much longer does the same backlog take?"
                ),
                {"arrivals_per_s": 45.0},
            ),
        ),
    ),
    Lab.from_runner(
        trapped_service_runner,
        slug="trapped-service",
        unit="assignment-05",
        title=gettext_noop("The service that will not recover"),
        intro=(
            gettext_noop(
                "A spike fills the queue; callers time out and retry; the spike ends but the "
                "queue stays full. Reproduce the trap, then switch on recovery controls at a "
                "moment you choose and watch it drain without losing a payment."
            )
        ),
        charts=trapped_service_charts.build,
        in_production=production_calls.trapped,
        before_after=True,
        try_next=TRAPPED_TRY_NEXT,
    ),
    Lab.from_runner(
        trapped_live_runner,
        slug="trapped-live",
        unit="assignment-05",
        title=gettext_noop("The trapped service, live: rescue it from the operator panel"),
        intro=gettext_noop(
            "The same service on a real Redis: callers that really time out and retry, a real "
            "queue and real workers. Watch it stay stuck after the spike, then switch the "
            "controls from the panel while it drowns and see it recover without losing a "
            "payment. Time runs four times faster than in the model (set below)."
        ),
        charts=trapped_live_charts.build,
        # 20 seeds of a live run would hold a heavy worker for about half an hour.
        seeds_twin="trapped-service",
        in_production=production_calls.trapped,
        try_next=(
            TryNext(
                gettext_noop(
                    "Let no layer retry (1 attempt a call): does the live service recover?"
                ),
                {"max_attempts": 1},
            ),
            TryNext(
                gettext_noop("Switch on only the retry budget: is that enough to free it?"),
                {"limit_retries": True},
            ),
        ),
        before_after=True,
        live=LiveView(
            (
                LiveNumber("second", gettext_noop("Simulated second")),
                LiveNumber("backlog", gettext_noop("Backlog"), gettext_noop("requests")),
                LiveNumber("oldest_age_s", gettext_noop("Oldest request has waited"), "s"),
                LiveNumber("useful", gettext_noop("Useful answers this second")),
                LiveNumber("wasted", gettext_noop("Wasted answers this second")),
                LiveNumber("retries", gettext_noop("Retries this second")),
                LiveNumber(
                    "latency_p99_ms",
                    gettext_noop("p99 wait of answered requests"),
                    "ms",
                    none_text=gettext_noop("nobody answered"),
                ),
                LiveNumber("payments_unknown", gettext_noop("Payments nobody owns")),
                LiveNumber("payments_lost", gettext_noop("Payments lost")),
            ),
            trapped_live_charts.live_chart,
            switches=trapped_live_runner.switches_now,
        ),
    ),
    Lab.from_runner(
        phase_map_runner,
        slug="phase-map",
        unit="assignment-05",
        title=gettext_noop("Phase map: which spikes trap the service?"),
        intro=(
            gettext_noop(
                "One run for every spike size and duration in a grid, with no controls. "
                "Green cells recovered by themselves, red ones stayed trapped: the border is "
                "the service's hidden capacity."
            )
        ),
        charts=phase_map_charts.build,
        in_production=production_calls.phase_map,
        try_next=(
            TryNext(
                gettext_noop(
                    "Let no layer retry (1 attempt per call): how many spikes still trap it?"
                ),
                {"max_attempts": 1},
            ),
            TryNext(
                gettext_noop("Give callers a 2 s timeout: how far does the border move?"),
                {"client_timeout_ms": 2000.0},
            ),
        ),
    ),
    Lab.from_runner(
        cold_cache_runner,
        slug="cold-cache",
        unit="assignment-05",
        title=gettext_noop("Follow-up 1: the cache restarts cold"),
        intro=(
            gettext_noop(
                "1,000 reads a second reach an empty cache in front of an origin that does "
                "100 a second. Shared fetches, a budget, stale copies and fast 429s keep the "
                "origin safe: count where every read went."
            )
        ),
        charts=cold_cache_charts.build,
        in_production=production_calls.cold_cache,
        try_next=(
            TryNext(
                gettext_noop(
                    "Switch the origin's budget off: how many fetches reach it in one second?"
                ),
                {"origin_budget": False},
            ),
            TryNext(
                gettext_noop("Switch off the budget and shared fetches: how many reads give up?"),
                {"origin_budget": False, "coalescing": "none"},
            ),
        ),
    ),
    Lab.from_runner(
        job_cost_runner,
        slug="job-cost",
        unit="assignment-05",
        title=gettext_noop("Follow-up 2: when some jobs cost 100 times more"),
        intro=(
            gettext_noop(
                "For 30 seconds many more jobs are expensive. Estimate the drain by counting "
                "jobs, then by counting work units, and find the oldest expensive job."
            )
        ),
        charts=job_cost_charts.build,
        try_next=(
            TryNext(
                gettext_noop("Add two workers: how much sooner is the queue empty, by each count?"),
                {"workers": 6},
            ),
            TryNext(
                gettext_noop(
                    "Let an expensive job cost 10 units, not 100: does counting jobs still mislead?"
                ),
                {"cost_ratio": 10.0},
            ),
        ),
    ),
    Lab.from_runner(
        pool_trap_runner,
        slug="pool-trap",
        unit="assignment-05",
        title=gettext_noop("A second loop: the connection pool that traps the service"),
        intro=gettext_noop(
            "Every request needs a database connection. While the database is slow, "
            "requests queue for one; callers give up and retry, but their old requests "
            "stay in line and still take a connection. Watch the pool stay busy for "
            "nobody, then switch on one control and watch it recover."
        ),
        charts=pool_trap_charts.build,
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
        in_production=production.pool_wait,
    ),
)

_BY_SLUG = {lab.slug: lab for lab in LABS}
if len(_BY_SLUG) != len(LABS):
    raise RuntimeError("two labs share a slug")


def get_lab(slug: str) -> Lab | None:
    """The lab with this slug, or None."""
    return _BY_SLUG.get(slug)


def labs_for_unit(unit_slug: str) -> list[Lab]:
    """The labs of one unit, in the order the lesson meets them."""
    return [lab for lab in LABS if lab.unit == unit_slug]
