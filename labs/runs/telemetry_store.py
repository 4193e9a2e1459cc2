"""Where the site's queue figures live in Redis, and how anyone reads them.

The sampler (`labs.runs.telemetry`) writes, the web processes and the workers read or beat.
Everything lives in `TELEMETRY_REDIS_URL` (the cache's database unless set), never in the
broker's: it can be inspected and flushed apart from queued tasks.

Liveness is never evicted: under `maxmemory-policy volatile-ttl` a full Redis evicts the
keys closest to expiry first, and the workers' beats (60 s) and the snapshot (15 s) used to
be those, so admission said "no lab runner is up" while the runners were working (attack
review, D4). So they have no TTL and are cleaned up explicitly: a beat removes the members
silent for `WORKERS_TTL_S`, a stopping worker removes itself, and a snapshot carries its
time `t` and counts as none once older than `SNAPSHOT_TTL_S`. The history and totals keep
their TTLs: losing them loses figures, never the truth about who is alive.

Keys (all under `TELEMETRY_PREFIX`):

- `<p>:now`: the latest snapshot (JSON), rewritten every second; older than 15 s it counts
  as none (the sampler stopped), so a reader can tell figures from none. No TTL.
- `<p>:samples`: the last hour of per-second samples (a list, newest first).
- `<p>:totals`: counters since the sampler started counting (a hash), for Prometheus.
- `<p>:workers:<queue>`: the workers consuming `queue` (a sorted set: name -> last beat).
  No TTL.
- `<p>:started:<queue>`: when each of those workers started (a sorted set: name -> its
  process's start, on its own clock), for the sweep of runs a dead worker took
  (`labs.runs.orphans`). No TTL; it keeps only the names still in the set above.
- `<p>:holds:<worker>`: the deliveries the worker held at its last beat (JSON: its clock
  `t` and kombu's delivery `tags`), for the same sweep. A TTL (`HOLDS_TTL_S`): evicted or
  expired, the sweep judges by start times alone, never wrongly.
- `<p>:leader`: which sampler process writes (the others wait their turn).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings

from labs.runs import redis_clients

SNAPSHOT_TTL_S = 15
HISTORY_S = 3600
# A worker beats every second; one silent for this long is counted as gone.
BEAT_EVERY_S = 1.0
ALIVE_FOR_S = 3.0
WORKERS_TTL_S = 60
HOLDS_TTL_S = 60
TOTALS_TTL_S = 30 * 86400


def key(*parts: str) -> str:
    return ":".join([settings.TELEMETRY_PREFIX, *parts])


def client() -> redis.Redis:
    return redis_clients.telemetry()


def snapshot(now: float | None = None) -> dict[str, Any] | None:
    """The sampler's latest figures, or None when no sampler has written for 15 s (or Redis
    does not answer): a reader then knows nothing, and says so."""
    try:
        raw = client().get(key("now"))
    except redis.RedisError:
        return None
    if not raw:
        return None
    snap = json.loads(raw)
    now = time.time() if now is None else now
    if now - float(snap.get("t", 0)) > SNAPSHOT_TTL_S:
        return None
    return snap


def write_snapshot(pipe, snap: dict[str, Any]):
    """Queue the writing of `snap` on `pipe`: no TTL (see the module's note)."""
    name = key("now")
    pipe.set(name, json.dumps(snap, separators=(",", ":")))
    return pipe


def queue_figures(queue: str) -> dict[str, Any] | None:
    """One queue's figures from the latest snapshot (None: no snapshot)."""
    snap = snapshot()
    if snap is None:
        return None
    return snap["queues"].get(queue) or {}


def samples(last_s: int = HISTORY_S) -> list[dict[str, Any]]:
    """The per-second samples of the last `last_s` seconds, oldest first."""
    try:
        raw = client().lrange(key("samples"), 0, max(0, last_s - 1))
    except redis.RedisError:
        return []
    return [json.loads(item) for item in reversed(raw)]


def totals() -> dict[str, int]:
    try:
        raw = client().hgetall(key("totals"))
    except redis.RedisError:
        return {}
    return {name.decode(): int(value) for name, value in raw.items()}


def beat(
    worker: str,
    queues: list[str],
    now: float | None = None,
    started: float | None = None,
    holds: list[str] | None = None,
) -> None:
    """A worker says it is alive and consuming `queues`; given them, since when (`started`)
    and which deliveries it holds now (`holds`: kombu's delivery tags)."""
    now = time.time() if now is None else now
    pipe = client().pipeline(transaction=False)
    if holds is not None:
        said = json.dumps({"t": now, "tags": holds}, separators=(",", ":"))
        pipe.set(key("holds", worker), said, ex=HOLDS_TTL_S)
    for queue in queues:
        name = key("workers", queue)
        pipe.zadd(name, {worker: now})
        pipe.zremrangebyscore(name, "-inf", now - WORKERS_TTL_S)
        pipe.persist(name)  # a key an older version gave a TTL: eviction-proof from now
        if started is not None:
            since = key("started", queue)
            pipe.zadd(since, {worker: started})
            # Only the names still beating above: a worker gone for good leaves nothing.
            pipe.zinterstore(since, {since: 1, name: 0})
    pipe.execute()


def gone(worker: str, queues: list[str]) -> None:
    """A worker stopping says so, rather than letting its beats time out."""
    pipe = client().pipeline(transaction=False)
    for queue in queues:
        pipe.zrem(key("workers", queue), worker)
        pipe.zrem(key("started", queue), worker)
    pipe.delete(key("holds", worker))
    pipe.execute()


def workers_alive(queues: list[str], now: float | None = None) -> dict[str, list[str]]:
    """The workers that beat for each queue within `ALIVE_FOR_S`."""
    now = time.time() if now is None else now
    pipe = client().pipeline(transaction=False)
    for queue in queues:
        pipe.zrangebyscore(key("workers", queue), now - ALIVE_FOR_S, "+inf")
    found = pipe.execute()
    return {q: sorted(n.decode() for n in names) for q, names in zip(queues, found, strict=True)}


@dataclass(frozen=True)
class LiveWorker:
    """A worker that beat for a queue within `ALIVE_FOR_S`: when it started, and the
    deliveries it held when it last said (`holds_at`, its clock; None: it does not say)."""

    name: str
    started: float | None
    holds_at: float | None = None
    holds: frozenset[str] = frozenset()


def live_workers(queue: str, now: float | None = None) -> list[LiveWorker]:
    """The workers that beat for `queue` within `ALIVE_FOR_S`, with what they said of
    themselves."""
    now = time.time() if now is None else now
    pipe = client().pipeline(transaction=False)
    pipe.zrangebyscore(key("workers", queue), now - ALIVE_FOR_S, "+inf")
    pipe.zrange(key("started", queue), 0, -1, withscores=True)
    alive, starts = pipe.execute()
    names = sorted(name.decode() for name in alive)
    if not names:
        return []
    since = {name.decode(): float(at) for name, at in starts}
    said = client().mget([key("holds", name) for name in names])
    found = []
    for name, raw in zip(names, said, strict=True):
        holds = json.loads(raw) if raw else {}
        found.append(
            LiveWorker(name, since.get(name), holds.get("t"), frozenset(holds.get("tags", ())))
        )
    return found
