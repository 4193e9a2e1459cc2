"""Each lab's prediction prompts: what a student is asked to expect before pressing Run.

One or two prompts per lab, written for its lesson, each answered by a summary figure the
lab declares. The `because` sentence of each is filled from the run's own figures and
params when the result is shown (`labs.catalogue.prediction.judge`), so it explains this
run, not the lesson's. `tests/test_predictions.py` holds every lab to at least one prompt
naming a figure it reports, and every placeholder to a figure, a param or an `extra`.
"""

from __future__ import annotations

from labs.catalogue.prediction import Prompt, Values, yes_no
from labs.text import gettext_noop


def _busy_minute_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"excess_per_s": max(0, params["arrive_per_s"] - params["capacity_per_s"])}


def _busiest_second(summary: Values, params: Values) -> dict[str, float]:
    return {"busiest_second": max(params["arrivals"], default=0)}


def _burst_extra(summary: Values, params: Values) -> dict[str, float]:
    return {
        "busiest_second": max(params["arrivals"], default=0),
        "fixed_capacity": params["fixed_workers"] * params["per_worker"],
    }


def _timeouts_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"timeout_s": params["timeout_ms"] / 1000}


def _degradation_extra(summary: Values, params: Values) -> dict[str, float]:
    down_s = max(0, min(params["down_until_s"], params["duration_s"]) - params["down_from_s"])
    return {"down_s": down_s, "degraded_pct": round(100 * summary["degraded_share"], 1)}


def _trapped_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"wasted_pct": round(100 * summary["wasted_share"], 1)}


def _retries_extra(summary: Values, params: Values) -> dict[str, float]:
    return {
        "fail_pct": round(100 * params["fail_p"], 1),
        "expected_pct": round(100 * summary["expected_first_try_ok_share"], 1),
    }


def _breaker_live_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"down_s": params["down_for_s"]}


def _cold_cache_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"hit_pct": round(100 * summary["hit_share"], 1)}


def _job_cost_extra(summary: Values, params: Values) -> dict[str, float]:
    return {"expensive_pct": round(100 * params["incident_expensive_share"], 1)}


RECOVERS = yes_no(gettext_noop("Yes, it recovers"), gettext_noop("No, it stays trapped"))
TRAPPED_BECAUSE = gettext_noop(
    "The service can serve %(capacity_rps)s requests a second; retries made each request "
    "%(amplification)s attempts on average, %(wasted_pct)s%% of the work answered callers "
    "who had already given up, and the backlog ended at %(final_backlog)s."
)

PROMPTS: dict[str, tuple[Prompt, ...]] = {
    "answer-fast": (
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
    ),
    "fanout": (
        Prompt(
            "fastest_min",
            gettext_noop(
                "With the most workers at the fastest rate, how many minutes will it take?"
            ),
            gettext_noop(
                "%(jobs)s jobs shared by %(fastest_workers)s workers, each sending "
                "%(fastest_rate_per_s)s a second, take %(fastest_min)s minutes; the slowest "
                "setting took %(slowest_min)s minutes."
            ),
            high=120,
            step=0.5,
            unit=gettext_noop("min"),
        ),
    ),
    "batching": (
        Prompt(
            "minutes",
            gettext_noop("How many minutes will sending every message take?"),
            gettext_noop(
                "Each worker sent %(per_worker_per_s)s messages a second in batches of "
                "%(batch)s, so %(workers)s workers sent %(sent_per_s)s a second (the provider "
                "allows %(limit_per_s)s): %(messages)s messages took %(minutes)s minutes."
            ),
            high=120,
            step=0.5,
            unit=gettext_noop("min"),
        ),
        Prompt(
            "throttled",
            gettext_noop("Will the provider's limit hold the workers back?"),
            gettext_noop(
                "The workers could send %(sent_per_s)s a second against the provider's limit "
                "of %(limit_per_s)s; the limit keeps "
                "%(useful_workers)s workers busy, and there were %(workers)s."
            ),
            choices=yes_no(gettext_noop("Yes, it is throttled"), gettext_noop("No, it is not")),
        ),
    ),
    "busy-minute": (
        Prompt(
            "peak_backlog",
            gettext_noop("How deep will the backlog get during the busy spell?"),
            gettext_noop(
                "For %(busy_s)s s, %(arrive_per_s)s jobs arrived each second and "
                "%(capacity_per_s)s were served: %(excess_per_s)s more a second than the "
                "workers could take, so %(peak_backlog)s were waiting at the peak."
            ),
            high=60000,
            step=500,
            extra=_busy_minute_extra,
        ),
    ),
    "at-least-once": (
        Prompt(
            "duplicates_plain",
            gettext_noop("How many parents will get the same text twice from the plain sender?"),
            gettext_noop(
                "%(messages)s messages were delivered %(deliveries)s times; the plain sender "
                "sent on every delivery (%(duplicates_plain)s extra texts), the idempotent one "
                "sent %(idempotent_sent)s in all."
            ),
            high=20,
        ),
    ),
    "fanout-live": (
        Prompt(
            "duplicate_effects",
            gettext_noop("After the worker crashes, how many texts will go out twice?"),
            gettext_noop(
                "Worker crashes: %(crashes)s. Jobs delivered again after their text had gone: "
                "%(duplicates_delivered)s. Texts that went out twice: %(duplicate_effects)s "
                "(idempotent sending: %(idempotent)s)."
            ),
            high=20,
        ),
    ),
    "provider-outage": (
        Prompt(
            "oldest_age_max_min",
            gettext_noop("How old, in minutes, will the oldest waiting job get?"),
            gettext_noop(
                "The provider was down for %(down_for_min)s minutes while %(arrivals_per_min)s "
                "jobs a minute kept arriving; %(workers)s workers cleared the backlog by minute "
                "%(backlog_cleared_min)s, and the oldest job waited %(oldest_age_max_min)s "
                "minutes."
            ),
            high=30,
            step=0.5,
            unit=gettext_noop("min"),
        ),
    ),
    "drain": (
        Prompt(
            "peak_backlog",
            gettext_noop("How deep will the backlog get?"),
            gettext_noop(
                "%(total_arrived)s jobs arrived in %(seconds)s s, up to %(busiest_second)s in "
                "one second; with at most %(most_workers)s workers doing %(per_worker)s a "
                "second each, the backlog peaked at %(peak_backlog)s."
            ),
            high=3000,
            step=50,
            extra=_busiest_second,
        ),
    ),
    "drain-compare": (
        Prompt(
            "rules_left_behind",
            gettext_noop("How many of the rules will leave jobs waiting at the end?"),
            gettext_noop(
                "Of %(rules)s rules, %(rules_left_behind)s left jobs waiting after %(seconds)s "
                "s; the best kept the backlog to %(lowest_peak_backlog)s, and the cheapest that "
                "emptied the queue used %(cheapest_worker_seconds)s worker-seconds."
            ),
            high=10,
        ),
    ),
    "scaling-signal": (
        Prompt(
            "cpu_left_at_end",
            gettext_noop("Scaling on CPU, how many jobs will still wait at the end?"),
            gettext_noop(
                "A worker waiting on I/O used %(cpu_peak_pct)s%% CPU, under the "
                "%(cpu_target_pct)s%% target, so the pool scaled on CPU never grew past "
                "%(cpu_most_workers)s and left %(cpu_left_at_end)s jobs; scaled on depth it "
                "grew to %(depth_most_workers)s and left %(depth_left_at_end)s."
            ),
            high=3000,
            step=50,
        ),
    ),
    "db-knee": (
        Prompt(
            "scaled_left_at_end",
            gettext_noop("Adding workers with no cap, how many jobs will wait at the end?"),
            gettext_noop(
                "Past %(knee_concurrency)s queries at once the database slows down: with up to "
                "%(scaled_most_workers)s workers it ended answering %(scaled_db_per_s_at_end)s "
                "a second at %(scaled_latency_ms_at_end)s ms each and left "
                "%(scaled_left_at_end)s; capped at %(cap)s it left %(capped_left_at_end)s."
            ),
            high=30000,
            step=500,
        ),
    ),
    "burst-live": (
        Prompt(
            "peak_backlog_fixed",
            gettext_noop("With the fixed pool on the real queue, how deep will the backlog get?"),
            gettext_noop(
                "%(fixed_workers)s workers take %(fixed_capacity)s messages a lesson-second "
                "against bursts of up to %(busiest_second)s: the real queue peaked at "
                "%(peak_backlog_fixed)s, the model at %(sim_peak_backlog_fixed)s."
            ),
            high=3000,
            step=50,
            extra=_burst_extra,
        ),
    ),
    "fifo-live": (
        Prompt(
            "standard_out_of_order",
            gettext_noop("On the standard queue, how many updates will be done out of order?"),
            gettext_noop(
                "%(workers)s workers took updates from the standard queue side by side: "
                "%(standard_out_of_order)s of %(updates)s were done out of order; the FIFO "
                "queue had %(fifo_out_of_order)s out of order, but its groups waited "
                "%(fifo_blocked_s)s s behind the poison message."
            ),
            high=20,
        ),
    ),
    "retention": (
        Prompt(
            "expired",
            gettext_noop("How many messages will expire before anyone works on them?"),
            gettext_noop(
                "The outage lasted %(outage_h)s h and the oldest message reached "
                "%(oldest_age_max_h)s h, against a retention of %(source_retention_h)s h: "
                "%(expired)s expired, and %(parked)s poison messages were parked in the DLQ."
            ),
            high=10000,
            step=100,
        ),
    ),
    "timeouts": (
        Prompt(
            "stuck_at_timeout",
            gettext_noop("With the timeout, how many calls will be waiting at once?"),
            gettext_noop(
                "Little's law: %(rate_per_s)s calls a second, each held at most "
                "%(timeout_s)s s, keep %(stuck_at_timeout)s waiting at once; the longest wait "
                "with no timeout held %(most_stuck)s."
            ),
            high=10000,
            step=100,
            extra=_timeouts_extra,
        ),
    ),
    "deadline": (
        Prompt(
            "answered",
            gettext_noop("Will the caller get an answer within its deadline?"),
            gettext_noop(
                "The callee needs %(service_s)s s; %(tries)s tries fitted in the "
                "%(deadline_s)s s deadline, the caller waited %(caller_waited_s)s s, and "
                "%(wasted_s)s s of work was done for nobody."
            ),
            choices=yes_no(gettext_noop("Yes, in time"), gettext_noop("No, it gives up")),
        ),
    ),
    "backoff": (
        Prompt(
            "full_total_ms",
            gettext_noop("With full jitter, how long will all the waits add up to?"),
            gettext_noop(
                "Without jitter the waits double from %(base_ms)s ms up to the cap of "
                "%(cap_ms)s ms, %(none_total_ms)s ms in all; full jitter draws each wait "
                "between 0 and that, and this seed's waits came to %(full_total_ms)s ms."
            ),
            high=20000,
            step=100,
            unit=gettext_noop("ms"),
        ),
    ),
    "retry-storm": (
        Prompt(
            "busiest_slot",
            gettext_noop("How many retries will land in the busiest slot?"),
            gettext_noop(
                "With no jitter all %(clients)s clients retried in the same slot "
                "(%(busiest_slot_no_jitter)s at once); the jitter you chose spread them so "
                "the busiest %(slot_ms)s ms slot held %(busiest_slot)s."
            ),
            high=2000,
            step=10,
        ),
    ),
    "layered-retries": (
        Prompt(
            "every_layer_load_per_s",
            gettext_noop(
                "With every layer retrying, how many calls a second will reach the failing service?"
            ),
            gettext_noop(
                "%(attempts)s attempts at each of %(layers)s layers multiply to "
                "%(every_layer_calls)s calls per click: %(clicks_per_s)s clicks a second became "
                "%(every_layer_load_per_s)s calls; with one layer retrying, "
                "%(one_layer_load_per_s)s."
            ),
            high=10000,
            step=100,
            unit=gettext_noop("calls/s"),
        ),
    ),
    "breaker": (
        Prompt(
            "fast_fail",
            gettext_noop("How many calls will the breaker fail fast?"),
            gettext_noop(
                "After %(threshold)s failures the breaker opened for %(open_s)s s at a time: "
                "%(fast_fail_while_down)s calls failed fast while the service was down and "
                "%(fast_fail_after_recovery)s after it was back, so the first success came "
                "%(late_by_s)s s after the recovery."
            ),
            high=100,
        ),
    ),
    "degradation": (
        Prompt(
            "error_share",
            gettext_noop("What share of requests will get an error page?"),
            gettext_noop(
                "The database was down for %(down_s)s s of %(duration_s)s s: with no fallback "
                "%(errors_without_fallback)s requests would have failed; the cached page "
                "answered %(degraded_pct)s%% of requests, and %(errors)s failed."
            ),
            percent=True,
            extra=_degradation_extra,
        ),
    ),
    "cascade": (
        Prompt(
            "usable_share_stall",
            gettext_noop(
                "While the dependency stalls, what share of requests will get a usable answer?"
            ),
            gettext_noop(
                "Holding every call through the stall needs %(threads_needed)s threads and the "
                "service has %(threads)s: at the peak %(peak_threads_busy)s were busy, "
                "%(peak_waiting_on_dependency)s of them waiting on the dependency, and each "
                "request took %(attempts_per_request)s attempts."
            ),
            percent=True,
            tolerance=0.25,
        ),
    ),
    "idempotent-charges": (
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
    ),
    "poison-messages": (
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
    ),
    "health-checks": (
        Prompt(
            "shallow_failed_pct",
            gettext_noop("With shallow health checks, what share of requests will fail?"),
            gettext_noop(
                "The database was down from %(db_down_from_s)s s to %(db_down_until_s)s s; "
                "shallow checks kept sending the sick instances %(shallow_sick_share_pct)s%% of "
                "the traffic and %(shallow_failed_pct)s%% failed; deep checks took every "
                "instance out for %(deep_all_out_s)s s and %(deep_failed_pct)s%% failed."
            ),
            unit="%",
            tolerance=0.15,
        ),
    ),
    "availability": (
        Prompt(
            "longest_chain_down_h_per_year",
            gettext_noop("How many hours a year will the longest chain be down?"),
            gettext_noop(
                "Availabilities multiply along a chain: %(longest_chain)s links of "
                "%(link_pct)s%% give %(longest_chain_pct)s%%, which is "
                "%(longest_chain_down_h_per_year)s hours down in a year of 8,760."
            ),
            high=200,
            unit=gettext_noop("h"),
        ),
    ),
    "poison-live": (
        Prompt(
            "receives_mr3",
            gettext_noop("With 3 receives allowed, how many receives will the real queue make?"),
            gettext_noop(
                "%(made_mr3)s messages succeeded at once; the %(poison)s poison messages were "
                "received until the DLQ took them: %(receives_mr3)s receives in all "
                "(%(receives_mr1)s with 1 allowed, %(receives_mr5)s with 5)."
            ),
            high=60,
        ),
    ),
    "retries-live": (
        Prompt(
            "first_try_ok_share",
            gettext_noop("What share of messages will succeed at the first try?"),
            gettext_noop(
                "Each call fails with a chance of %(fail_pct)s%%, so %(expected_pct)s%% should "
                "succeed first time; %(messages)s messages are a small sample, and this run "
                "made %(calls)s calls of which %(failed_calls)s failed."
            ),
            percent=True,
            extra=_retries_extra,
        ),
    ),
    "breaker-live": (
        Prompt(
            "failed_fast",
            gettext_noop("How many calls will the breaker turn away without trying the service?"),
            gettext_noop(
                "The service was down for %(down_s)s s; the breaker opened after every "
                "%(fail_max)s failures (openings: %(opened)s), so %(failed_fast)s calls failed "
                "fast and only %(reached_sick_service)s reached the sick service."
            ),
            high=300,
            step=5,
            extra=_breaker_live_extra,
        ),
    ),
    "drain-math": (
        Prompt(
            "drain_s",
            gettext_noop("How many seconds will the backlog take to drain?"),
            gettext_noop(
                "The workers serve %(capacity_per_s)s a second while %(arrivals_per_s)s "
                "arrive, %(net_capacity_per_s)s a second net: %(backlog)s waiting take "
                "%(drain_s)s s."
            ),
            high=120,
            unit=gettext_noop("s"),
        ),
    ),
    "trapped-service": (
        Prompt(
            "recovered",
            gettext_noop("After the trigger ends, will the service recover?"),
            TRAPPED_BECAUSE,
            choices=RECOVERS,
            extra=_trapped_extra,
        ),
        Prompt(
            "peak_backlog",
            gettext_noop("How deep will the backlog get?"),
            gettext_noop(
                "The spike sent %(spike_rps)s requests a second against a capacity of "
                "%(capacity_rps)s; %(retries)s retries came on top of %(original_requests)s "
                "requests and the backlog reached %(peak_backlog)s (its limit is "
                "%(queue_limit)s)."
            ),
            high=5000,
            step=50,
        ),
    ),
    "trapped-live": (
        Prompt(
            "recovered",
            gettext_noop("After the trigger ends, will the service recover?"),
            TRAPPED_BECAUSE,
            choices=RECOVERS,
            extra=_trapped_extra,
        ),
    ),
    "phase-map": (
        Prompt(
            "trapped_runs",
            gettext_noop("Of the cells on the map, how many will end trapped?"),
            gettext_noop(
                "%(trapped_runs)s of %(runs)s spikes left the service trapped: it serves "
                "%(capacity_rps)s requests a second, and a spike that piles up more than about "
                "%(timeout_backlog)s requests (a timeout's worth) past that is not worked off."
            ),
            high=100,
        ),
    ),
    "cold-cache": (
        Prompt(
            "origin_peak_rps",
            gettext_noop("How many requests a second will reach the origin at its busiest?"),
            gettext_noop(
                "%(offered_rps)s reads a second met a cold cache of %(keys)s keys; the "
                "origin's busiest second took %(origin_peak_rps)s (it can serve "
                "%(origin_capacity_rps)s), and %(hit_pct)s%% of reads were hits."
            ),
            high=2000,
            step=10,
            unit=gettext_noop("requests/s"),
            extra=_cold_cache_extra,
        ),
    ),
    "job-cost": (
        Prompt(
            "actual_drain_s",
            gettext_noop("After the incident, how many seconds will the backlog take to drain?"),
            gettext_noop(
                "Counting jobs promised %(count_estimate_s)s s, but %(expensive_pct)s%% of the "
                "incident's jobs cost %(cost_ratio)s times as much: weighing the work promised "
                "%(work_estimate_s)s s, and it took %(actual_drain_s)s s."
            ),
            high=1000,
            step=10,
            unit=gettext_noop("s"),
            extra=_job_cost_extra,
        ),
    ),
    "pool-trap": (
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
    ),
}


def prompts_for(slug: str) -> tuple[Prompt, ...]:
    """The lab's prediction prompts (none for a lab not in the list)."""
    return PROMPTS.get(slug, ())
