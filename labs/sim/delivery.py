"""At-least-once delivery and the idempotent consumer that makes it safe (Lessons 07, 13).

A queue that promises "at least once" sometimes hands a message over twice, for
example when a worker crashed after doing the work but before saying "done". A
plain consumer then does the work twice; an idempotent one remembers what it has
finished and skips a repeat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence


def deliver_at_least_once(messages: Sequence[str], repeats: Iterable[str]) -> list[str]:
    """Every message delivered once, plus one extra delivery per entry in `repeats`.

    Messages keep their order, and each redelivery comes straight after the first
    delivery of its message, as when a worker crashes before acknowledging and the
    next worker picks the same message up. A message listed twice in `repeats` is
    delivered three times.
    """
    if len(set(messages)) != len(messages):
        raise ValueError("messages must be distinct message ids")
    extra = Counter(repeats)
    unknown = sorted(set(extra) - set(messages))
    if unknown:
        raise ValueError(f"repeats must name messages in messages, got unknown {unknown}")
    deliveries: list[str] = []
    for message in messages:
        deliveries.extend([message] * (1 + extra[message]))
    return deliveries


def consume(deliveries: Iterable[str], idempotent: bool) -> list[str]:
    """The messages a consumer acted on, in order, given what the queue delivered.

    An idempotent consumer keeps the ids it has finished and skips any it has seen;
    a plain one acts on every delivery.
    """
    acted: list[str] = []
    finished: set[str] = set()
    for message in deliveries:
        if idempotent and message in finished:
            continue
        acted.append(message)
        finished.add(message)
    return acted


def process(deliveries: Iterable[str], idempotent: bool) -> int:
    """How many times a payment worker charges a fee for these deliveries."""
    return len(consume(deliveries, idempotent))
