"""The site's own queues, watched the way Lesson 12 says to watch one: depth, the age of
the oldest waiting run, runs in and out per second, workers alive, and how long runs take.

Sampled once a second in one place, the sweeper's loop (`manage.py sweep_runs --loop`),
never per request: two indexed queries on the runs table, one read of the broker's queue
lengths and one of the workers' beats, then one pipelined write to the telemetry database
(`labs.runs.telemetry_store`). With sweepers on several machines, one of them at a time
holds the leader key and samples; the others wait to take over. Every web process reads
the same figures from Redis (the operations page, /metrics, admission, /healthz/deep).

What counts: a run "waits" on its queue while it is queued and needs a worker (not a run
waiting on an identical one, nor one answered from the result store). Events are counted
once each, when the sampler first sees them (a run's row becomes visible when its
transaction commits, a little after the time written on it).
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

import redis
from django.conf import settings
from django.db.models import Count, Min, Q
from django.utils import timezone

from labs.runs import redis_clients
from labs.runs import telemetry_store as store
from labs.runs.models import Run
from labs.runs.turns import waiting_for_their_turn

logger = logging.getLogger(__name__)

WINDOWS_S = {"5m": 300, "60m": 3600}
RATE_OVER_S = 10  # runs in and out per second: the mean of the last 10 samples
# An event already counted is remembered this long; the query looks this far back, since
# a row can commit a moment after the time written on it.
SEEN_FOR_S, LOOK_BACK_S = 60, 5
# No run stays unfinished longer than this (the queue timeout, then three attempts of the
# longest lab's hard limit): rows created earlier are not read for events.
LONGEST_RUN_S = 1800
LEADER_TTL_S = 5
MAX_FINISHED_KEPT = 100_000


def percentiles(values: list[float]) -> dict[str, float | int | None]:
    """p50, p95 and p99 by nearest rank, and how many values there were."""
    ordered = sorted(values)
    n = len(ordered)

    def rank(p: float) -> float | None:
        return round(ordered[max(0, math.ceil(p * n) - 1)], 3) if n else None

    return {"p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "n": n}


@dataclass
class Finished:
    at: float
    queue: str
    run_s: float | None
    latency_s: float
    failure: str  # error code, "" when it succeeded


@dataclass
class Sampler:
    """One process's sampler; `tick()` once a second."""

    me: str = field(default_factory=lambda: secrets.token_hex(8))
    leading: bool = False
    seen: dict[tuple[Any, str], float] = field(default_factory=dict)
    finished: deque[Finished] = field(default_factory=lambda: deque(maxlen=MAX_FINISHED_KEPT))
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RATE_OVER_S))
    last_slow: dict[str, Any] = field(default_factory=dict)
    last_slow_at: float = 0.0

    def tick(self, now: datetime | None = None) -> dict[str, Any] | None:
        """Take one sample if this process leads; returns the snapshot written (or None)."""
        now = now or timezone.now()
        if not self._lead():
            return None
        queues, waiting, front = self._waiting(now)
        counts = self._events(now)
        queues |= set(counts)
        ordered = sorted(queues)
        messages = broker_lengths(ordered)
        alive = store.workers_alive(ordered, now.timestamp())
        sample: dict[str, Any] = {"t": round(now.timestamp(), 2), "q": {}}
        for queue in ordered:
            depth, oldest = waiting.get(queue, (0, None))
            c = counts.get(queue, {})
            sample["q"][queue] = [
                depth, oldest, c.get("arrived", 0), c.get("started", 0),
                c.get("finished", 0), len(alive.get(queue, [])),
            ]  # fmt: skip
        self.recent.append(sample)
        snap = self._snapshot(now, sample, messages, alive, front)
        self._write(sample, snap, counts)
        return snap

    # --- leading -------------------------------------------------------------------
    def _lead(self) -> bool:
        r, name = store.client(), store.key("leader")
        if r.set(name, self.me, nx=True, ex=LEADER_TTL_S):
            self._take_over()
        elif r.get(name) == self.me.encode():
            r.expire(name, LEADER_TTL_S)
        else:
            self.leading = False
            return False
        return True

    def _take_over(self) -> None:
        """Start leading from what the database and Redis already hold, not from nothing."""
        self.leading = True
        self.seen.clear()
        self.finished.clear()
        now = timezone.now()
        since = now - timedelta(seconds=WINDOWS_S["60m"])
        rows = event_rows(now, Q(finished_at__gt=since), look_back_s=WINDOWS_S["60m"])
        for row in sorted(rows, key=lambda r: r[6]):
            self.finished.append(finished_from(row))
            self.seen[(row[0], "finished")] = now.timestamp()
        self.recent.clear()
        self.recent.extend(store.samples(RATE_OVER_S))

    # --- reading ---------------------------------------------------------------------
    def _waiting(
        self, now: datetime
    ) -> tuple[set[str], dict[str, tuple[int, float | None]], dict[str, float | None]]:
        """Per queue: (runs waiting, the oldest one's age), and the front's age: the oldest
        run sent at priority 0, which every lane's next run waits behind
        (`labs.runs.fair_share`; with it off every run is at 0, and the front is the oldest)."""
        rows = (
            Run.objects.filter(status=Run.Status.QUEUED, same_as__isnull=True)
            .exclude(queue="")
            .exclude(waiting_for_their_turn())
            .values("queue", "priority")
            .annotate(n=Count("pk"), oldest=Min("created_at"))
        )

        def age(at: datetime) -> float:
            # At least 0: a run made after `now` was read (the sampler's clock is read
            # first, then the database) has waited no time, not -0.17 s.
            return max(0.0, round((now - at).total_seconds(), 2))

        counts: dict[str, int] = {}
        oldest: dict[str, datetime] = {}
        front: dict[str, float | None] = {}
        for row in rows:
            queue = row["queue"]
            counts[queue] = counts.get(queue, 0) + row["n"]
            oldest[queue] = min(oldest.get(queue, row["oldest"]), row["oldest"])
            if row["priority"] == 0:
                front[queue] = age(row["oldest"])
        waiting: dict[str, tuple[int, float | None]] = {
            queue: (n, age(oldest[queue])) for queue, n in counts.items()
        }
        queues = set(waiting) | {settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE}
        return queues, waiting, front

    def _events(self, now: datetime) -> dict[str, dict[str, Any]]:
        """Runs that arrived, started and finished since the last look, per queue."""
        since = now - timedelta(seconds=LOOK_BACK_S)
        recent = Q(created_at__gt=since) | Q(started_at__gt=since) | Q(finished_at__gt=since)
        counts: dict[str, dict[str, Any]] = {}
        stamp = now.timestamp()
        for row in event_rows(now, recent):
            pk, queue, lab, status, created, started, finished, code, attempts, same_as = row
            took_worker = attempts > 0
            events = []
            if created > since and (same_as is None or took_worker):
                events.append("arrived")
            if started and started > since and took_worker:
                events.append("started")
            if finished and finished > since and (took_worker or same_as is None):
                events.append("finished")
            for event in events:
                if (pk, event) in self.seen:
                    continue
                self.seen[(pk, event)] = stamp
                mine = counts.setdefault(queue, {})
                mine[event] = mine.get(event, 0) + 1
                if event == "finished":
                    self.finished.append(finished_from(row))
                    by = mine.setdefault("by", {})
                    by[(lab, status, code)] = by.get((lab, status, code), 0) + 1
        self.seen = {k: t for k, t in self.seen.items() if t > stamp - SEEN_FOR_S}
        return counts

    # --- the snapshot ------------------------------------------------------------------
    def _snapshot(self, now, sample, messages, alive, front) -> dict[str, Any]:
        stamp = now.timestamp()
        if stamp - self.last_slow_at >= 10 or not self.last_slow:
            # The hour's percentiles move slowly: every 10 s is enough.
            self.last_slow = self._window(stamp, WINDOWS_S["60m"])
            self.last_slow_at = stamp
        fast = self._window(stamp, WINDOWS_S["5m"])
        queues = {}
        for queue, (depth, oldest, *_rest) in sample["q"].items():
            rates = self._rates(queue)
            net = rates["started_per_s"] - rates["arrived_per_s"]
            queues[queue] = {
                "depth": depth,
                "oldest_s": oldest,
                "front_oldest_s": front.get(queue),
                "messages": messages.get(queue),
                "workers": len(alive.get(queue, [])),
                "worker_names": alive.get(queue, []),
                **rates,
                "net_per_s": round(net, 2),
                "drain_s": drain_s(depth, net),
                "run_s": {"5m": fast.get(queue, {}).get("run_s"),
                          "60m": self.last_slow.get(queue, {}).get("run_s")},
                "latency_s": {"5m": fast.get(queue, {}).get("latency_s"),
                              "60m": self.last_slow.get(queue, {}).get("latency_s")},
                "failures": {"5m": fast.get(queue, {}).get("failures", {}),
                             "60m": self.last_slow.get(queue, {}).get("failures", {})},
            }  # fmt: skip
        return {"t": round(stamp, 2), "queues": queues}

    def _rates(self, queue: str) -> dict[str, float]:
        seen = [s["q"].get(queue) for s in self.recent]
        seen = [q for q in seen if q]
        span = max(1, len(seen))
        names = ("arrived_per_s", "started_per_s", "finished_per_s")
        return {n: round(sum(q[2 + i] for q in seen) / span, 2) for i, n in enumerate(names)}

    def _window(self, stamp: float, span_s: int) -> dict[str, dict[str, Any]]:
        while self.finished and self.finished[0].at < stamp - WINDOWS_S["60m"]:
            self.finished.popleft()
        per: dict[str, dict[str, Any]] = {}
        for done in self.finished:
            if done.at < stamp - span_s:
                continue
            mine = per.setdefault(done.queue, {"run_s": [], "latency_s": [], "failures": {}})
            if done.run_s is not None:
                mine["run_s"].append(done.run_s)
            mine["latency_s"].append(done.latency_s)
            if done.failure:
                mine["failures"][done.failure] = mine["failures"].get(done.failure, 0) + 1
        for mine in per.values():
            mine["run_s"] = percentiles(mine["run_s"])
            mine["latency_s"] = percentiles(mine["latency_s"])
        return per

    def _write(self, sample, snap, counts) -> None:
        pipe = store.client().pipeline(transaction=False)
        samples = store.key("samples")
        pipe.lpush(samples, json.dumps(sample, separators=(",", ":")))
        pipe.ltrim(samples, 0, store.HISTORY_S - 1)
        pipe.expire(samples, 2 * store.HISTORY_S)
        store.write_snapshot(pipe, snap)
        totals = store.key("totals")
        for queue, c in counts.items():
            if c.get("started"):
                pipe.hincrby(totals, f"started|{queue}", c["started"])
            if c.get("arrived"):
                pipe.hincrby(totals, f"arrived|{queue}", c["arrived"])
            for (lab, status, code), n in c.get("by", {}).items():
                pipe.hincrby(totals, f"finished|{queue}|{lab}|{status}", n)
                if code:
                    pipe.hincrby(totals, f"failed|{queue}|{code}", n)
        pipe.expire(totals, store.TOTALS_TTL_S)
        pipe.execute()


def drain_s(depth: int, net_per_s: float) -> float | None:
    """Seconds until the queue is empty at the present net rate (depth / net rate); None
    while it is not draining (0 if it is empty)."""
    if not depth:
        return 0
    return round(depth / net_per_s, 1) if net_per_s > 0 else None


def event_rows(now: datetime, recent: Q, look_back_s: int = 0) -> Iterable[tuple]:
    """Rows of runs that took a queue, created recently enough to have changed since."""
    oldest = now - timedelta(seconds=LONGEST_RUN_S + look_back_s)
    return (
        Run.objects.filter(recent, created_at__gte=oldest)
        .exclude(queue="")
        .values_list(
            "pk", "queue", "lab", "status", "created_at", "started_at", "finished_at",
            "error_code", "attempts", "same_as_id",
        )
    )  # fmt: skip


def finished_from(row: tuple) -> Finished:
    _pk, queue, _lab, status, created, started, finished, code, attempts, _same = row
    run_s = (finished - started).total_seconds() if started and attempts > 0 else None
    return Finished(
        at=finished.timestamp(),
        queue=queue,
        run_s=run_s,
        latency_s=(finished - created).total_seconds(),
        failure=(code or "failed") if status == Run.Status.FAILED else "",
    )


# kombu keeps a queue's messages of priority 0 under its name and those of each other step
# of `priority_steps` (0 to 9: `labs.runs.fair_share`) beside it, under "<name>\x06\x16<step>".
PRIORITY_STEPS = cast(
    list[int], settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("priority_steps", [0, 3, 6, 9])
)
PRIORITY_SUFFIXES = tuple(f"\x06\x16{step}" if step else "" for step in PRIORITY_STEPS)


def broker_lengths(queues: list[str]) -> dict[str, int]:
    """Messages waiting in each queue's lists on the broker (not yet handed to a worker)."""
    pipe = redis_clients.sweeper_broker().pipeline(transaction=False)
    for queue in queues:
        for suffix in PRIORITY_SUFFIXES:
            pipe.llen(queue + suffix)
    found = pipe.execute()
    n = len(PRIORITY_SUFFIXES)
    return {q: sum(found[i * n : (i + 1) * n]) for i, q in enumerate(queues)}


def run_forever(stop, every_s: float = 1.0) -> None:
    """Sample every `every_s` until `stop` (a threading.Event) is set; in a thread of the
    sweeper's process, so a long sweep or prune never delays a sample."""
    from django.db import connection

    sampler = Sampler()
    try:
        while not stop.is_set():
            started = time.monotonic()
            sample_safely(sampler)
            stop.wait(max(0.0, every_s - (time.monotonic() - started)))
    finally:
        connection.close()  # this thread's own


def sample_safely(sampler: Sampler) -> dict[str, Any] | None:
    """One tick; Redis or the database being down skips it (and says so) rather than stop."""
    from django.db import DatabaseError, close_old_connections

    try:
        close_old_connections()
        return sampler.tick()
    except (redis.RedisError, DatabaseError) as exc:
        logger.warning("telemetry sample skipped: %s", exc)
        sampler.leading = False
        return None
