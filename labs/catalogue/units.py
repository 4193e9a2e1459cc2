"""The four units of the course, in teaching order."""

from __future__ import annotations

from dataclasses import dataclass

from labs.text import gettext_noop


@dataclass(frozen=True)
class Unit:
    slug: str
    code: str  # how the course names it
    title: str
    summary: str


UNITS: tuple[Unit, ...] = (
    Unit(
        "lesson-07",
        gettext_noop("Lesson 07"),
        gettext_noop("Queues and async work: answer now, work later"),
        gettext_noop(
            "Put slow work on a queue, reply at once, and let workers catch up. "
            "How many workers a deadline needs, what a busy minute leaves behind, and "
            "why every consumer must cope with the same message twice."
        ),
    ),
    Unit(
        "lesson-12",
        gettext_noop("Lesson 12"),
        gettext_noop("Queues that take the burst: workers scaled on the backlog"),
        gettext_noop(
            "A burst lands in the queue instead of on the workers. Compare a fixed pool "
            "with one that grows and shrinks with the backlog, and meet the visibility "
            "timeout, receive counts and the dead-letter queue."
        ),
    ),
    Unit(
        "lesson-13",
        gettext_noop("Lesson 13"),
        gettext_noop("Surviving failure: timeouts, retries, breakers"),
        gettext_noop(
            "When a dependency stalls: cap every wait, retry politely with backoff and "
            "jitter, stop calling a sick service with a circuit breaker, degrade instead "
            "of failing, and count how copies and chains change availability."
        ),
    ),
    Unit(
        "assignment-05",
        gettext_noop("Assignment 05"),
        gettext_noop("Capstone: a service trapped by its own retries"),
        gettext_noop(
            "A spike ends but the service stays slow: expired work and retries keep the "
            "queue full. Find the loop that sustains it and recover without losing a payment."
        ),
    ),
)

_BY_SLUG = {unit.slug: unit for unit in UNITS}


def get_unit(slug: str) -> Unit | None:
    return _BY_SLUG.get(slug)
