"""Each unit's challenges, in teaching order: a goal, its checks, what may change.

Every challenge is met by a known setting and missed at the lab's defaults
(`tests/teaching/test_challenges.py` runs both), so none is impossible or given away.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from teaching.challenges import Challenge

CHALLENGES: tuple[Challenge, ...] = (
    # Lesson 07
    Challenge(
        "answer-while-down",
        "lesson-07",
        "answer-fast",
        gettext_noop(
            "While the SMS provider is down, answer every teacher's post within 100 ms at "
            "p99, and let no post fail."
        ),
        "p99_ms <= 100\nfailed_posts == 0",
        ("send",),
    ),
    Challenge(
        "busy-minute-by-65",
        "lesson-07",
        "busy-minute",
        gettext_noop(
            "Clear the busy minute's backlog by second 65 with a capacity of at most 2,800 "
            "jobs a second."
        ),
        "cleared_at_s <= 65\ncapacity_per_s <= 2800",
        ("capacity_per_s",),
    ),
    Challenge(
        "batching-ten-minutes",
        "lesson-07",
        "batching",
        gettext_noop("Send the 5,000,000 texts in under 10 minutes with the same 50 workers."),
        "minutes < 10",
        ("batch",),
    ),
    # Lesson 12
    Challenge(
        "drain-fewest-workers",
        "lesson-12",
        "drain",
        gettext_noop("Empty the queue within the 10 seconds with at most 4 workers at any moment."),
        "cleared_at_s <= 10\nmost_workers <= 4",
        ("max_workers", "min_workers", "per_waiting"),
    ),
    Challenge(
        "drain-by-five",
        "lesson-12",
        "drain",
        gettext_noop("Empty the queue by second 5 with at most 10 workers at any moment."),
        "cleared_at_s <= 5\nmost_workers <= 10",
        ("max_workers", "min_workers", "per_waiting"),
    ),
    Challenge(
        "retention-five-days",
        "lesson-12",
        "retention",
        gettext_noop(
            "The workers are stopped for 5 days (120 h): lose no message to the retention period."
        ),
        "expired == 0",
        ("source_retention_h", "dlq_retention_h"),
        {"outage_h": 120},
    ),
    # Lesson 13
    Challenge(
        "cascade-timeout-only",
        "lesson-13",
        "cascade",
        gettext_noop(
            "With only a timeout (no breaker, no fallback), keep 99 in every 100 pages that don't "
            "use the dependency answering while it is stuck."
        ),
        "own_pages_share_stall >= 0.99",
        ("use_timeout", "dependency_timeout_ms", "backoff"),
    ),
    Challenge(
        "cascade-every-caller",
        "lesson-13",
        "cascade",
        gettext_noop(
            "Give every caller a usable answer during the stall, with no request failing."
        ),
        "usable_share_stall >= 0.99\nrequests_failed == 0",
        (
            "use_timeout",
            "dependency_timeout_ms",
            "backoff",
            "breaker",
            "breaker_threshold",
            "breaker_open_s",
            "fallback",
        ),
    ),
    Challenge(
        "breaker-notice-at-once",
        "lesson-13",
        "breaker",
        gettext_noop(
            "Set the breaker so calls succeed as soon as the service is back (0 s late), while "
            "at most 16 calls reach the sick service."
        ),
        "late_by_s <= 0\nfailed <= 16",
        ("threshold", "open_s"),
    ),
    Challenge(
        "storm-less-work",
        "lesson-13",
        "retry-storm",
        gettext_noop(
            "2,000 clients fail together and retry until they are served. Serve every one of "
            "them, the last within 1,000 ms, with at most 5,500 calls in all."
        ),
        "until_gave_up == 0\nuntil_last_ms <= 1000\nuntil_calls <= 5500",
        ("jitter", "base_ms", "cap_ms"),
        {"clients": 2_000},
    ),
    # Assignment 05
    Challenge(
        "trapped-no-admission-limit",
        "assignment-05",
        "trapped-service",
        gettext_noop(
            "Free the trapped service without the admission limit, and leave no payment unresolved."
        ),
        "recovered == true\nobligations_unresolved == 0",
        (
            "limit_retries",
            "retry_budget",
            "drop_expired",
            "drop_cost_ms",
            "drop_payments",
            "reconcile_payments",
            "reconcile_delay_s",
            "reserve_share",
        ),
    ),
    Challenge(
        "drain-math-fifteen",
        "assignment-05",
        "drain-math",
        gettext_noop("Drain the 600 waiting requests within 15 s by raising the capacity only."),
        "drain_s <= 15",
        ("capacity_per_s",),
    ),
    Challenge(
        "pool-trap-by-30",
        "assignment-05",
        "pool-trap",
        gettext_noop("Get the pool's callers answered again by second 30."),
        "control_recovered_at_s <= 30",
        ("control", "switch_at_s", "short_wait_ms", "bulkhead_waiters"),
    ),
)

_BY_SLUG = {c.slug: c for c in CHALLENGES}


def for_unit(unit: str) -> list[Challenge]:
    return [c for c in CHALLENGES if c.unit == unit]


def get_challenge(slug: str) -> Challenge | None:
    return _BY_SLUG.get(slug)
