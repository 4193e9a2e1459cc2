"""Assignment 05: connection-pool exhaustion, a second loop that traps a service.

Every request needs one of `pool_size` database connections for one query. While the
database is slow, connections are held longer and requests queue for one. A request waits
at most the pool's own wait limit (`pool_wait_ms`; 30 s by default in HikariCP and in
SQLAlchemy's pool), but its caller gives up much sooner (`client_timeout_ms`) and sends
a retry. The abandoned request stays in line, so once the line is longer than the caller's
timeout every connection is spent on a request nobody is waiting for. The database is fast
again, the pool is busy every moment, and no caller ever gets an answer: the same trap as
the retry loop of Assignment 05's capstone, with the pool's waiting line as its queue.

Three controls break the loop, each switched on at `switch_at_s`:

- a pool wait shorter than the caller's timeout: a request gives up its place in line
  while its caller still waits, so no connection goes to a request nobody wants, and the
  caller hears "busy" early;
- no retries: the line stops growing faster than the pool empties it;
- a bulkhead: at most `max_waiters` may wait, the rest are refused at once.

Deterministic: callers arrive evenly spaced and every query takes the same time.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import NamedTuple

# Where the next event comes from, in the order `simulate` looks: at equal times the lower
# one runs first (a freed connection before a timeout, a timeout before a new request).
DONE, POOL_TIMEOUT, CALLER_TIMEOUT, SEND, NEW, SNAPSHOT = range(6)
# An attempt's place: waiting for a connection, running its query, or finished.
WAITING, RUNNING, FINISHED = range(3)


class Rules(NamedTuple):
    """What the pool and the callers do in one phase of the run."""

    pool_wait_ms: float  # longest wait for a connection before the pool says "busy"
    retries: int  # retries per call after its first attempt
    max_waiters: int  # 0: no limit on requests waiting for a connection


class PoolSecond(NamedTuple):
    second: int
    new_calls: int
    retries: int  # retry attempts sent
    useful: int  # queries whose caller was still waiting
    wasted: int  # queries whose caller had already given up
    pool_timeouts: int  # attempts that gave up their place in line
    rejected: int  # attempts the bulkhead refused at once
    gave_up: int  # calls that failed after their last attempt
    waiting: int  # attempts waiting for a connection at the end of the second
    in_use: int  # connections busy at the end of the second
    oldest_wait_s: float  # the longest wait in line at the end of the second


class Attempt:
    """One attempt of one call, in line or on a connection."""

    __slots__ = ("call", "gone", "queued_s", "state")

    def __init__(self, call: list[int], queued_s: float) -> None:
        self.call = call  # [attempts sent, finished (0/1)]
        self.queued_s = queued_s
        self.state = WAITING
        self.gone = False  # its caller has stopped waiting for it


def _check(rate_per_s: float, horizon_s: int, pool_size: int, rules: tuple[Rules, ...]) -> None:
    if rate_per_s <= 0 or horizon_s < 1 or pool_size < 1:
        raise ValueError("rate_per_s must be > 0, horizon_s and pool_size >= 1")
    for r in rules:
        if r.pool_wait_ms <= 0 or r.retries < 0 or r.max_waiters < 0:
            raise ValueError("pool_wait_ms must be > 0, retries and max_waiters >= 0")


def simulate(
    *,
    rate_per_s: float,
    horizon_s: int,
    pool_size: int,
    query_ms: float,
    slow_query_ms: float,
    slow_from_s: float,
    slow_until_s: float,
    client_timeout_ms: float,
    backoff_ms: float,
    before: Rules,
    after: Rules,
    switch_at_s: float,
) -> list[PoolSecond]:
    """One row per second of the run; `after` replaces `before` at `switch_at_s`.

    Why streams and not one heap of events: every caller waits the same timeout and every
    retry the same backoff, so those events come due in the order they were made and wait
    in plain FIFOs; pool timeouts come due in the order of the line itself. Only the
    queries (at most `pool_size`) need a heap. Each step takes the earliest of the
    streams; at equal times a freed connection goes first, then pool timeouts, caller
    timeouts, retries, new calls, and last the end-of-second snapshot.
    """
    _check(rate_per_s, horizon_s, pool_size, (before, after))
    if min(query_ms, slow_query_ms, client_timeout_ms) <= 0 or backoff_ms < 0:
        raise ValueError("query times and client_timeout_ms must be > 0, backoff_ms >= 0")
    counts = [[0] * 7 for _ in range(horizon_s)]  # new, retries, useful, wasted, pool, rej, gave
    snaps: list[tuple[int, int, float]] = []
    line: deque[Attempt] = deque()  # waiting for a connection, oldest first
    sends: deque[tuple[float, list[int]]] = deque()  # retries due, in time order
    caller_timeouts: deque[tuple[float, Attempt]] = deque()  # in time order
    queries: list[tuple[float, int, Attempt]] = []  # running: (ends at, seq, attempt)
    waiting, free, seq = 0, pool_size, 0
    client_s, backoff_s = client_timeout_ms / 1000, backoff_ms / 1000
    before_s, after_s = before.pool_wait_ms / 1000, after.pool_wait_ms / 1000

    def rules_at(t: float) -> Rules:
        return after if t >= switch_at_s else before

    def count(t: float, column: int) -> None:
        if t < horizon_s:
            counts[int(t)][column] += 1

    def retry_or_give_up(call: list[int], t: float) -> None:
        if call[0] <= rules_at(t).retries:
            sends.append((t + backoff_s, call))
        else:
            count(t, 6)

    def run_query(a: Attempt, t: float) -> None:
        nonlocal free, seq
        free -= 1
        seq += 1
        a.state = RUNNING
        hold = slow_query_ms if slow_from_s <= t < slow_until_s else query_ms
        heapq.heappush(queries, (t + hold / 1000, seq, a))

    def prune(t: float) -> None:
        """Drop finished attempts and time out the ones that waited the pool's limit."""
        nonlocal waiting
        limit_s = rules_at(t).pool_wait_ms / 1000
        while line and (line[0].state != WAITING or line[0].queued_s + limit_s <= t + 1e-9):
            a = line.popleft()
            if a.state != WAITING:
                continue
            a.state = FINISHED
            waiting -= 1
            count(t, 4)
            if not a.gone:  # the caller hears "busy" and may try again
                a.gone = True
                retry_or_give_up(a.call, t)

    def send(call: list[int], t: float) -> None:
        nonlocal waiting
        call[0] += 1
        a = Attempt(call, t)
        caller_timeouts.append((t + client_s, a))
        prune(t)
        if free and not waiting:
            run_query(a, t)
            return
        limit = rules_at(t).max_waiters
        if limit and waiting >= limit:
            a.state, a.gone = FINISHED, True
            count(t, 5)
            retry_or_give_up(call, t)
            return
        line.append(a)
        waiting += 1

    inf = float("inf")
    calls_sent, next_new, next_snap = 0, 0.0, 1
    while True:
        while line and line[0].state != WAITING:
            line.popleft()
        t_pool = inf
        if line:
            t_pool = line[0].queued_s + before_s
            if t_pool >= switch_at_s:  # from the switch on, the new wait applies to all
                t_pool = max(switch_at_s, line[0].queued_s + after_s)
        due = (
            queries[0][0] if queries else inf,
            t_pool,
            caller_timeouts[0][0] if caller_timeouts else inf,
            sends[0][0] if sends else inf,
            next_new if next_new < horizon_s else inf,
            float(next_snap) if next_snap <= horizon_s else inf,
        )
        t = min(due)
        if t > horizon_s or t == inf:
            break
        kind = due.index(t)
        if kind == DONE:
            _, _, a = heapq.heappop(queries)
            free += 1
            a.state = FINISHED
            if a.gone:
                count(t, 3)
            else:
                a.gone = True
                a.call[1] = 1
                count(t, 2)
            prune(t)
            if line:
                waiting -= 1
                run_query(line.popleft(), t)
        elif kind == POOL_TIMEOUT:
            prune(t)
        elif kind == CALLER_TIMEOUT:
            _, a = caller_timeouts.popleft()
            if not a.gone:
                a.gone = True
                retry_or_give_up(a.call, t)
        elif kind == SEND:
            _, call = sends.popleft()
            count(t, 1)
            send(call, t)
        elif kind == NEW:
            calls_sent += 1
            count(t, 0)
            send([0, 0], t)
            next_new = calls_sent / rate_per_s
        else:
            prune(t)
            oldest = t - line[0].queued_s if line else 0.0
            snaps.append((waiting, pool_size - free, round(oldest, 3)))
            next_snap += 1
    rows = []
    for s in range(horizon_s):
        new, retries, useful, wasted, timed_out, rejected, gave_up = counts[s]
        waiting_then, in_use, oldest_s = snaps[s]
        rows.append(
            PoolSecond(
                s,
                new,
                retries,
                useful,
                wasted,
                timed_out,
                rejected,
                gave_up,
                waiting_then,
                in_use,
                oldest_s,
            )
        )
    return rows


def healthy(row: PoolSecond) -> bool:
    """A second in which callers get their answers: nothing wasted, nobody failed."""
    return row.wasted == 0 and row.gave_up == 0 and row.useful >= 0.9 * row.new_calls


def recovered_at(rows: list[PoolSecond], after_s: int) -> int | None:
    """The first second from `after_s` on from which every second is healthy, or None."""
    at = None
    for row in rows[after_s:]:
        if not healthy(row):
            at = None
        elif at is None:
            at = row.second
    return at
