"""A poison message, maxReceiveCount and the dead-letter queue (Lessons 07, 13).

A message whose processing always fails would come back forever and keep workers
busy. The queue counts how often each message was received; once a failing message
has been received `max_receives` times it moves to the dead-letter queue (DLQ)
instead of coming back, and the workers go on with the rest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Sequence
from typing import Literal, NamedTuple

ReceiveOutcome = Literal["done", "retry", "dlq"]


class Receive(NamedTuple):
    """One receive of a message: which try it was and what became of the message."""

    number: int  # 1 for the queue's first receive of any message, 2 for the next, ...
    message: str
    receive_count: int  # how often this message has been received, this one included
    outcome: ReceiveOutcome


def receive_log(
    messages: Sequence[str], poison: Collection[str], max_receives: int = 3
) -> list[Receive]:
    """Every receive the workers make until the queue is empty, in order.

    The queue is first in, first out. A message in `poison` fails every time; after a
    failure it becomes visible again at the back of the queue, unless it has now been
    received `max_receives` times, in which case it moves to the DLQ. Every other
    message succeeds on its first receive.
    """
    if max_receives < 1:
        raise ValueError(f"max_receives must be >= 1, got {max_receives}")
    if len(set(messages)) != len(messages):
        raise ValueError("messages must be distinct message ids")
    unknown = sorted(set(poison) - set(messages))
    if unknown:
        raise ValueError(f"poison must name messages in messages, got unknown {unknown}")
    waiting = deque(messages)
    counts = dict.fromkeys(messages, 0)
    log: list[Receive] = []
    while waiting:
        message = waiting.popleft()
        counts[message] += 1
        if message not in poison:
            outcome: ReceiveOutcome = "done"
        elif counts[message] >= max_receives:
            outcome = "dlq"
        else:
            outcome = "retry"
            waiting.append(message)
        log.append(Receive(len(log) + 1, message, counts[message], outcome))
    return log


def redrive(
    messages: Sequence[str], poison: Collection[str], max_receives: int = 3
) -> tuple[list[str], list[str], int]:
    """Play the queue to empty and return `(done, dlq, receives)`.

    `done` and `dlq` list messages in the order they finished or were parked;
    `receives` is the total number of receives, the work spent on the whole queue.
    """
    log = receive_log(messages, poison, max_receives)
    done = [r.message for r in log if r.outcome == "done"]
    dlq = [r.message for r in log if r.outcome == "dlq"]
    return done, dlq, len(log)
