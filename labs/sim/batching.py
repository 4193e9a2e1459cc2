"""Lesson 07's fan-out with batches: sending 500 messages per provider call instead of one,
and a provider that refuses more than its limit (throttling).

A call with one message takes `call_ms` (mostly the round trip); each further message in
the same call adds `per_message_ms`. One message per call spends nearly all its time on
round trips; a batch pays the round trip once for many. However many workers send, the
provider accepts at most `limit_per_s` messages a second: workers beyond that only
collect refusals.
"""

from __future__ import annotations

from typing import NamedTuple


class FanOut(NamedTuple):
    """How fast a fan-out goes, and what limits it."""

    per_worker_per_s: float  # messages one worker sends a second
    offered_per_s: float  # all workers together, before the provider's limit
    sent_per_s: float  # what the provider accepts
    minutes: float  # until every message is sent
    calls: int  # provider calls for all the messages
    throttled: bool  # the workers offer more than the provider accepts
    useful_workers: float  # workers the provider's limit can keep busy


def fan_out(
    messages: int,
    workers: int,
    batch: int,
    call_ms: float,
    per_message_ms: float,
    limit_per_s: float,
) -> FanOut:
    if min(messages, workers, batch) < 1 or call_ms < 0 or per_message_ms < 0:
        raise ValueError("messages, workers and batch must be >= 1; times >= 0")
    if limit_per_s <= 0 or call_ms <= 0:
        raise ValueError("the provider's limit and one call's time must be > 0")
    per_worker = batch * 1000 / (call_ms + (batch - 1) * per_message_ms)
    offered = workers * per_worker
    sent = min(offered, limit_per_s)
    return FanOut(
        per_worker_per_s=per_worker,
        offered_per_s=offered,
        sent_per_s=sent,
        minutes=messages / sent / 60,
        calls=-(-messages // batch),
        throttled=offered > limit_per_s,
        useful_workers=limit_per_s / per_worker,
    )
