"""Lesson 13: connect and read timeouts inside one total deadline, and a callee whose own
timeout outlives its caller's (the work it goes on doing is for nobody).

A caller tries a slow service up to `attempts` times, waiting `base_s`, 2 × `base_s`, …
(capped at `cap_s`) between tries. Each try waits at most `connect_s` to connect and
`read_s` for the answer, and never past the total `deadline_s`: the last try gets only
what is left. The service takes `service_s` to answer and works at most `callee_timeout_s`
on one try; whatever it works after its caller gave up on that try is wasted.
"""

from __future__ import annotations

from typing import NamedTuple


class Try(NamedTuple):
    start_s: float
    end_s: float  # when the caller stopped waiting for this try
    answered: bool
    wasted_s: float  # the service's work on this try after the caller had left


class Outcome(NamedTuple):
    tries: list[Try]
    answered: bool
    caller_waited_s: float
    wasted_s: float


def call_within_deadline(
    *,
    deadline_s: float,
    connect_s: float,
    read_s: float,
    attempts: int,
    base_s: float,
    cap_s: float,
    service_s: float,
    callee_timeout_s: float,
    connect_fails: bool = False,
) -> Outcome:
    """The caller's tries, each bounded by its timeouts and by what is left of the deadline.

    With `connect_fails` the service cannot be reached at all: each try ends at its
    connect timeout and the service does no work.
    """
    if min(deadline_s, connect_s, read_s, base_s, cap_s, callee_timeout_s) <= 0 or attempts < 1:
        raise ValueError("times must be > 0 and attempts >= 1")
    if service_s < 0:
        raise ValueError("service_s must be >= 0")
    tries: list[Try] = []
    now = 0.0
    for number in range(attempts):
        if number:
            wait = min(cap_s, base_s * 2 ** (number - 1))
            if now + wait >= deadline_s:
                break  # no time left for another try: stop instead of starting one to cut
            now += wait
        left = deadline_s - now
        if connect_fails:
            end = now + min(connect_s, left)
            tries.append(Try(now, end, False, 0.0))
            now = end
            continue
        waits_for = min(read_s, left)  # connecting is quick when the service is up
        works_for = min(service_s, callee_timeout_s)
        answered = service_s <= waits_for and service_s <= callee_timeout_s
        end = now + (service_s if answered else min(waits_for, works_for))
        wasted = 0.0 if answered else max(0.0, works_for - waits_for)
        tries.append(Try(now, end if answered else now + waits_for, answered, wasted))
        now = tries[-1].end_s
        if answered:
            break
    return Outcome(
        tries=tries,
        answered=bool(tries) and tries[-1].answered,
        caller_waited_s=now,
        wasted_s=sum(t.wasted_s for t in tries),
    )
