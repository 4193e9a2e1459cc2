"""What a run's series are called, in the reader's language: the numbers table's headings
and the compare page's chart titles.

A result keeps each series under a key (`oldest_age_s`) that the CSV, the JSON download and
students' scripts read, so the key never changes; the page says it in words while it
renders. A lab's own charts name most series (the name of the trace that draws it); the
others are named here, one English name per key, translated where shown. A key named
nowhere is spelled out from its parts (`readable`), in English.
"""

from __future__ import annotations

from typing import Any

from labs.catalogue.lab import Lab
from labs.text import gettext, gettext_noop

SERIES = {
    "second": gettext_noop("second"),
    # cascade
    "new_requests": gettext_noop("new requests"),
    "ok": gettext_noop("full answers"),
    "fallback": gettext_noop("answers from the cache"),
    "fast_fails": gettext_noop("refused by the breaker"),
    "bare_usable": gettext_noop("usable answers with no tool"),
    # answer-fast
    "posts": gettext_noop("notices posted"),
    "queue_failed": gettext_noop("posts with an error, queued"),
    "request_threads_busy": gettext_noop("web threads busy, inside the request"),
    "request_posts_waiting": gettext_noop("posts waiting for a web thread, inside the request"),
    "queue_jobs_waiting": gettext_noop("jobs waiting in the queue"),
    "t_s": gettext_noop("time (s)"),
    "t_min": gettext_noop("time (min)"),
    "time_s": gettext_noop("time (s)"),
    "time_min": gettext_noop("time (min)"),
    "hour": gettext_noop("hour"),
    "run": gettext_noop("run"),
    "admit_limit_rps": gettext_noop("admission limit (per second)"),
    "admitted": gettext_noop("admitted"),
    "age_oldest_age_s": gettext_noop("scaled on age: oldest message age (s)"),
    "cpu_oldest_age_s": gettext_noop("scaled on CPU: oldest message age (s)"),
    "depth_oldest_age_s": gettext_noop("scaled on queue depth: oldest message age (s)"),
    "per_worker_oldest_age_s": gettext_noop("scaled on backlog per worker: oldest message age (s)"),
    "amplification": gettext_noop("calls per request"),
    "base_rps": gettext_noop("usual arrivals (per second)"),
    "spike_rps": gettext_noop("spike arrivals (per second)"),
    "duration_s": gettext_noop("spike length (s)"),
    "excess_requests": gettext_noop("requests beyond capacity"),
    "final_backlog": gettext_noop("backlog at the end"),
    "recovered": gettext_noop("recovered"),
    "recovered_at_s": gettext_noop("recovered at (s)"),
    "breaker": gettext_noop("breaker state"),
    "breaker_level": gettext_noop("breaker state (level)"),
    "breaker_state": gettext_noop("breaker state"),
    "dependency_ok": gettext_noop("dependency up"),
    "trial": gettext_noop("trial call"),
    "call_latency_p50_ms": gettext_noop("whole call, p50 (ms)"),
    "call_latency_p95_ms": gettext_noop("whole call, p95 (ms)"),
    "call_latency_p99_ms": gettext_noop("whole call, p99 (ms)"),
    "latency_p50_ms": gettext_noop("latency, p50 (ms)"),
    "latency_p95_ms": gettext_noop("latency, p95 (ms)"),
    "latency_p99_ms": gettext_noop("latency, p99 (ms)"),
    "caller_end_s": gettext_noop("caller gave up at (s)"),
    "service_end_s": gettext_noop("service gave up at (s)"),
    "start_s": gettext_noop("started at (s)"),
    "try": gettext_noop("try"),
    "wasted_s": gettext_noop("wasted time (s)"),
    "capped_latency_ms": gettext_noop("capped pool: latency (ms)"),
    "scaled_latency_ms": gettext_noop("scaled on backlog: latency (ms)"),
    "cleared_at_s": gettext_noop("cleared at (s)"),
    "left_at_end": gettext_noop("left at the end"),
    "most_workers": gettext_noop("most workers"),
    "peak_backlog": gettext_noop("peak backlog"),
    "rule": gettext_noop("rule"),
    "worker_seconds": gettext_noop("worker-seconds"),
    "completions": gettext_noop("completions"),
    "control_new_calls": gettext_noop("with the control: new calls"),
    "control_pool_timeouts": gettext_noop("with the control: pool timeouts"),
    "control_rejected": gettext_noop("with the control: refused"),
    "plain_new_calls": gettext_noop("without a control: new calls"),
    "plain_pool_timeouts": gettext_noop("without a control: pool timeouts"),
    "plain_rejected": gettext_noop("without a control: refused"),
    "copies": gettext_noop("copies"),
    "degraded": gettext_noop("older page, marked"),
    "error_without_fallback": gettext_noop("error page without a fallback"),
    "page_age_s": gettext_noop("age of the page shown (s)"),
    "delivery": gettext_noop("delivery"),
    "idempotent_acted": gettext_noop("idempotent: acted"),
    "idempotent_total": gettext_noop("idempotent: effects so far"),
    "plain_total": gettext_noop("without idempotency: effects so far"),
    "message": gettext_noop("message"),
    "dlq_depth": gettext_noop("DLQ depth"),
    "dlq_expired": gettext_noop("deleted from the DLQ by retention"),
    "expired": gettext_noop("deleted by retention"),
    "done": gettext_noop("done"),
    "drain_estimate_s": gettext_noop("drain estimate (s)"),
    "expired_dropped": gettext_noop("expired, thrown away"),
    "failure_pct": gettext_noop("calls failing (%)"),
    "fifo_dlq": gettext_noop("FIFO: in the DLQ"),
    "fifo_waiting": gettext_noop("FIFO: waiting"),
    "standard_dlq": gettext_noop("standard: in the DLQ"),
    "standard_waiting": gettext_noop("standard: waiting"),
    "gave_up": gettext_noop("callers gave up"),
    "in_flight": gettext_noop("in flight"),
    "in_flight_fixed": gettext_noop("fixed pool: in flight"),
    "in_flight_scaled": gettext_noop("scaled on backlog: in flight"),
    "visible_fixed": gettext_noop("fixed pool: waiting"),
    "visible_scaled": gettext_noop("scaled on backlog: waiting"),
    "oldest_age_s_fixed": gettext_noop("fixed pool: oldest message age (s)"),
    "oldest_age_s_scaled": gettext_noop("scaled on backlog: oldest message age (s)"),
    "keys_filled": gettext_noop("keys filled"),
    "origin_delay_ms": gettext_noop("origin delay (ms)"),
    "timed_out": gettext_noop("timed out"),
    "max_receives": gettext_noop("maxReceiveCount"),
    "minutes_batched": gettext_noop("batched: minutes"),
    "minutes_single": gettext_noop("one at a time: minutes"),
    "model_oldest_age_s": gettext_noop("model: oldest request age (s)"),
    "model_retries": gettext_noop("model: retries"),
    "model_useful": gettext_noop("model: useful"),
    "model_wasted": gettext_noop("model: wasted"),
    "oldest_age_s": gettext_noop("oldest message age (s)"),
    "outcome": gettext_noop("outcome"),
    "payments_lost": gettext_noop("payments lost"),
    "payments_reconciled": gettext_noop("payments reconciled"),
    "payments_reconciling": gettext_noop("payments being reconciled"),
    "provider_down": gettext_noop("provider down"),
    "queued": gettext_noop("queued"),
    "rate_per_s": gettext_noop("rate (per second)"),
    "receive": gettext_noop("receive"),
    "receive_count": gettext_noop("receive count"),
    "rejected": gettext_noop("refused"),
    "retry": gettext_noop("retry"),
    "service_down": gettext_noop("service down"),
    "shed": gettext_noop("shed"),
    "slot_start_ms": gettext_noop("slot start (ms)"),
    "throttled": gettext_noop("throttled"),
    "units_done": gettext_noop("work units done"),
    "wait_s": gettext_noop("wait (s)"),
    "wasted": gettext_noop("wasted"),
    "work_queued": gettext_noop("work queued"),
    "workers": gettext_noop("workers"),
    "arrivals": gettext_noop("arrivals"),
    "arrived": gettext_noop("arrived"),
}

UNIT_SUFFIXES = (("_ms", "ms"), ("_s", "s"), ("_rps", "per second"), ("_min", "min"))


def readable(key: str) -> str:
    """A series key in words when nothing names it: `oldest_age_s` → 'oldest age (s)'."""
    for suffix, unit in UNIT_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return f"{key[: -len(suffix)].replace('_', ' ')} ({unit})"
    return key.replace("_", " ")


def chart_words(lab: Lab | None, result: dict[str, Any]) -> dict[str, str]:
    """What the lab's own charts call each series: the name of the trace that draws it."""
    words: dict[str, str] = {}
    if lab is None:
        return words
    try:
        figures = lab.charts(result)
    except Exception:  # an old result the charts no longer read: fall back to the keys
        return words
    series = result.get("series") or {}
    for fig in figures:
        for trace in fig.get("data", []):
            y, name = trace.get("y"), trace.get("name")
            # Only a trace that draws one series alone names it: two series with the same
            # values (all zeros, say) would otherwise take each other's names.
            same = [k for k, v in series.items() if isinstance(v, list) and v == y]
            if name and len(same) == 1 and same[0] not in words:
                words[same[0]] = name
    return words


def series_names(lab: Lab | None, result: dict[str, Any]) -> dict[str, str]:
    """Every series key of `result` in the reader's words: the charts' name, else ours."""
    words = chart_words(lab, result)
    return {key: words.get(key) or named(key) for key in result.get("series") or {}}


def named(key: str) -> str:
    """Our name for a series key, in the reader's language (`readable` when it has none)."""
    english = SERIES.get(key)
    return gettext(english) if english else readable(key)
