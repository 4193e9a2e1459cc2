"""What a run's series are called, in the reader's language: the numbers table's headings
and the compare page's chart titles.

A result keeps each series under a key (`oldest_age_s`) that the CSV, the JSON download and
students' scripts read, so the key never changes; the page says it in words while it
renders. A lab's own charts name most series (the name of the trace that draws it); the
others are named by the lab itself (`Lab.series_names`, its folder's `SERIES_NAMES`) when
only that lab has them, and here when several labs do, one English name per key,
translated where shown. A key named nowhere is spelled out from its parts (`readable`), in
English.
"""

from __future__ import annotations

from typing import Any

from labs.catalogue.lab import Lab
from labs.text import gettext, gettext_noop

# The names several labs share: their time axes, then the series two or more labs produce.
SERIES = {
    "second": gettext_noop("second"),
    "t_s": gettext_noop("time (s)"),
    "t_min": gettext_noop("time (min)"),
    "time_s": gettext_noop("time (s)"),
    "time_min": gettext_noop("time (min)"),
    "hour": gettext_noop("hour"),
    "admit_limit_rps": gettext_noop("admission limit (per second)"),
    "admitted": gettext_noop("admitted"),
    "breaker": gettext_noop("breaker state"),
    "call_latency_p50_ms": gettext_noop("whole call, p50 (ms)"),
    "call_latency_p95_ms": gettext_noop("whole call, p95 (ms)"),
    "call_latency_p99_ms": gettext_noop("whole call, p99 (ms)"),
    "latency_p50_ms": gettext_noop("latency, p50 (ms)"),
    "latency_p95_ms": gettext_noop("latency, p95 (ms)"),
    "latency_p99_ms": gettext_noop("latency, p99 (ms)"),
    "peak_backlog": gettext_noop("peak backlog"),
    "completions": gettext_noop("completions"),
    "delivery": gettext_noop("delivery"),
    "idempotent_acted": gettext_noop("idempotent: acted"),
    "idempotent_total": gettext_noop("idempotent: effects so far"),
    "plain_total": gettext_noop("without idempotency: effects so far"),
    "message": gettext_noop("message"),
    "dlq_depth": gettext_noop("DLQ depth"),
    "done": gettext_noop("done"),
    "drain_estimate_s": gettext_noop("drain estimate (s)"),
    "expired_dropped": gettext_noop("expired, thrown away"),
    "gave_up": gettext_noop("callers gave up"),
    "in_flight": gettext_noop("in flight"),
    "oldest_age_s": gettext_noop("oldest message age (s)"),
    "outcome": gettext_noop("outcome"),
    "payments_lost": gettext_noop("payments lost"),
    "payments_reconciled": gettext_noop("payments reconciled"),
    "payments_reconciling": gettext_noop("payments being reconciled"),
    "queued": gettext_noop("queued"),
    "rejected": gettext_noop("refused"),
    "shed": gettext_noop("shed"),
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
    return {key: words.get(key) or named(key, lab) for key in result.get("series") or {}}


def named(key: str, lab: Lab | None = None) -> str:
    """Our name for a series key, in the reader's language: the lab's own name first, then
    the shared one (`readable` when neither names it)."""
    own = lab.series_names.get(key) if lab is not None else None
    english = own or SERIES.get(key)
    return gettext(english) if english else readable(key)
