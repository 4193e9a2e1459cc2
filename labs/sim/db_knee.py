"""Lessons 07 and 12: a scaler adds workers quicker than the database can take them.

Every job is one query. Up to its knee (about as many queries as it has cores) a database
answers more queries a second the more run at once; past the knee they fight over locks,
memory and CPU, each query slows the others, and it answers *fewer* a second. Past its
connection limit it refuses new connections outright.

A scaler that reads only the backlog sees the queue grow and adds workers, which pushes
the database further past its knee, which makes the queue grow faster: a feedback loop.
Capping the workers at the knee (a Lambda's maximum concurrency, a pool's size) keeps the
database at its best and lets the queue drain.

The curve is deliberately simple: linear to the knee, then divided by
`1 + contention * (queries past the knee)`, the shape of the retrograde part of
Gunther's Universal Scalability Law. One row per second, as in Lesson 12's `drain`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


class Database(NamedTuple):
    """A database as the workers see it."""

    query_ms: float  # one query's time when the database is not past its knee
    knee: int  # queries at once with the most answers a second
    contention_pct: float  # how much each query past the knee slows all of them
    max_connections: int  # connections past this are refused


class KneeRow(NamedTuple):
    second: int
    arrived: int
    workers: int
    connected: int  # workers holding a connection (the rest were refused)
    done: int
    backlog: int
    latency_ms: float  # one query's time this second


def _check(db: Database) -> None:
    if db.query_ms <= 0:
        raise ValueError(f"query_ms must be > 0, got {db.query_ms}")
    if db.knee < 1 or db.max_connections < 1:
        raise ValueError("knee and max_connections must be >= 1")
    if db.contention_pct < 0:
        raise ValueError(f"contention_pct must be >= 0, got {db.contention_pct}")


def throughput_per_s(concurrency: int, db: Database) -> float:
    """Queries a second the database answers with `concurrency` of them running at once."""
    _check(db)
    per_connection = 1000 / db.query_ms
    if concurrency <= db.knee:
        return concurrency * per_connection
    past = concurrency - db.knee
    return db.knee * per_connection / (1 + db.contention_pct / 100 * past)


def latency_ms(concurrency: int, db: Database) -> float:
    """One query's time at that concurrency (Little's law: in flight / answered a second)."""
    if concurrency <= db.knee:
        return db.query_ms
    return 1000 * concurrency / throughput_per_s(concurrency, db)


def serve(
    arrivals: Sequence[int],
    db: Database,
    *,
    per_waiting: int,
    max_workers: int,
) -> list[KneeRow]:
    """Play `arrivals` through workers scaled on the backlog (one per `per_waiting` waiting,
    1 to `max_workers`, decided from the last second's backlog) against `db`."""
    _check(db)
    if per_waiting < 1 or max_workers < 1:
        raise ValueError("per_waiting and max_workers must be >= 1")
    rows: list[KneeRow] = []
    backlog = 0
    for second, arrived in enumerate(arrivals):
        if arrived < 0:
            raise ValueError(f"arrivals[{second}] must be >= 0, got {arrived}")
        workers = min(max_workers, max(1, -(-backlog // per_waiting)))
        connected = min(workers, db.max_connections)
        backlog += arrived
        can = throughput_per_s(connected, db)
        # With less work than the workers can do, they idle and the database is not pushed.
        busy = backlog >= can
        done = math.floor(can) if busy else backlog
        backlog -= done
        latency = latency_ms(connected, db) if busy else db.query_ms
        rows.append(KneeRow(second, arrived, workers, connected, done, backlog, latency))
    return rows


def caught_up_at(rows: Sequence[KneeRow], level: int, after: int) -> int | None:
    """The first second from `after` on from which the backlog stays at or under `level`."""
    at = None
    for row in rows[after:]:
        if row.backlog > level:
            at = None
        elif at is None:
            at = row.second
    return at
