"""Scenario 2 on the real Redis: the phones are the workers of an SQS-style queue.

The queue is `labs.experiments.queue.RedisQueue` (visibility timeout, receive count,
dead-letter queue after the receive limit), rebuilt on each call with the teacher's current
settings, so a change of the visibility timeout or the receive limit holds from the next
receive. Every job is a "payment" with an idempotency key; the key is charged once however
many times its job is delivered and acknowledged. Some jobs are poison (they fail for every
worker) and some payments arrive twice (two messages, one key). Django-free.

Keys besides the queue's own (under the namespace's child `jobs`): `jcfg` (settings),
`jn` (counters), `charged` (keys charged), `who:<job>` (who received it, in order),
`mine:<pid>` (a phone's record), `jseq` (the next job number).
"""

from __future__ import annotations

import json
from typing import Any

import redis

from classlab.storm import now_ms
from labs.experiments.namespace import Namespace
from labs.experiments.queue import Message, RedisQueue

DEFAULTS: dict[str, int] = {
    "visibility_ms": 8000,
    "receive_limit": 3,
    "arrivals_per_min": 30,
    "poison_every": 10,  # one job in this many is poison (0: none)
    "duplicate_every": 7,  # one payment in this many arrives twice (0: none)
    "work_ms": 2000,  # how long a phone's automatic worker takes on a job
}
LIMITS: dict[str, tuple[int, int]] = {
    "visibility_ms": (50, 60000),
    "receive_limit": (1, 10),
    "arrivals_per_min": (0, 600),
    "poison_every": (0, 100),
    "duplicate_every": (0, 100),
    "work_ms": (0, 60000),
}
COUNTERS = ("arrived", "received", "acked", "charged", "duplicates_caught", "failed_poison")


def check_settings(values: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, value in values.items():
        if name not in LIMITS:
            raise ValueError(f"unknown setting {name!r}")
        low, high = LIMITS[name]
        number = int(value)
        if not low <= number <= high:
            raise ValueError(f"{name} must be between {low} and {high}, got {number}")
        out[name] = number
    return out


class Jobs:
    """The jobs queue of one experiment, and who did what with it."""

    def __init__(self, r: redis.Redis, ns: Namespace) -> None:
        self.r = r
        self.ns = ns.child("jobs")
        self.n = self.ns.key("jn")

    def setup(self, settings: dict[str, Any]) -> None:
        self.set(**{**DEFAULTS, **settings})
        self.queue()  # creates the stream and its group

    def set(self, **values: Any) -> None:
        checked = check_settings(values)
        key = self.ns.key("jcfg")
        self.r.hset(key, mapping={k: str(v) for k, v in checked.items()})
        self.r.pexpire(key, self.ns.ttl_ms)

    def settings(self) -> dict[str, int]:
        raw = self.r.hgetall(self.ns.key("jcfg"))
        return {**DEFAULTS, **{k.decode(): int(v) for k, v in raw.items()}}

    def queue(self) -> RedisQueue:
        cfg = self.settings()
        return RedisQueue(
            self.r,
            self.ns,
            visibility_timeout_s=cfg["visibility_ms"] / 1000,
            max_receives=cfg["receive_limit"],
            retention_s=3600.0,
        )

    def counts(self) -> dict[str, int]:
        raw = self.r.hgetall(self.n)
        return {name: int(raw.get(name.encode(), 0)) for name in COUNTERS}

    def _count(self, pipe: Any, name: str, by: int = 1) -> None:
        pipe.hincrby(self.n, name, by)
        pipe.pexpire(self.n, self.ns.ttl_ms)

    # -- arrivals (the worker) -----------------------------------------------------------

    def arrive(self, count: int) -> list[str]:
        """Put `count` new jobs on the queue; some poison, some payments sent twice."""
        cfg = self.settings()
        first = int(self.r.incrby(self.ns.key("jseq"), count)) - count
        self.r.pexpire(self.ns.key("jseq"), self.ns.ttl_ms)
        messages: list[tuple[str, str]] = []
        for number in range(first + 1, first + count + 1):
            poison = cfg["poison_every"] and number % cfg["poison_every"] == 0
            body = {"key": f"pay-{number}", "poison": bool(poison), "slow": number % 5 == 0}
            messages.append((f"job-{number}", json.dumps(body)))
            if cfg["duplicate_every"] and number % cfg["duplicate_every"] == 0 and not poison:
                messages.append((f"job-{number}-again", json.dumps(body)))
        if messages:
            self.queue().send_many(messages)
            pipe = self.r.pipeline()
            self._count(pipe, "arrived", len(messages))
            pipe.execute()
        return [m for m, _ in messages]

    # -- a phone ---------------------------------------------------------------------------

    def take(self, pid: str) -> dict[str, Any] | None:
        """Give phone `pid` one job (one whose timeout ran out first), or None."""
        got = self.queue().receive(pid, 1)
        if not got:
            return None
        m = got[0]
        pipe = self.r.pipeline()
        who = self.ns.key("who", m.msg_id)
        pipe.rpush(who, pid)
        pipe.pexpire(who, self.ns.ttl_ms)
        held = self.ns.key("held", pid)  # the server's note of the delivery, not the phone's
        pipe.hset(held, m.msg_id, f"{m.entry_id}|{m.received_ms}")
        pipe.pexpire(held, self.ns.ttl_ms)
        self._count(pipe, "received")
        pipe.execute()
        self._mine(pid, "received", 1)
        body = json.loads(m.body)
        return {
            "job": m.msg_id,
            "handle": m.entry_id,
            "receives": m.receives,
            "received_ms": m.received_ms,
            "key": body["key"],
            "slow": body["slow"],
        }

    def finish(self, pid: str, job: str) -> str:
        """Phone `pid` says it finished `job`. Returns what became of it.

        'acked': charged (or its key was charged before: 'duplicate'); 'poison': the job
        failed and comes back when its timeout runs out; 'lost': the visibility timeout ran
        out before the acknowledgement, so the job was not this phone's any more.
        """
        note = self.r.hget(self.ns.key("held", pid), job)
        if note is None:
            raise ValueError(f"job {job!r} was never delivered to this phone")
        self.r.hdel(self.ns.key("held", pid), job)
        handle, received = note.decode().split("|")
        received_ms = int(received)
        raw = self.r.xrange(self.ns.key("q"), handle, handle)
        queue = self.queue()
        if not raw:
            self._mine(pid, "lost", 1)
            return "lost"
        fields = {k.decode(): v.decode() for k, v in raw[0][1].items()}
        body = json.loads(fields.get("b", "{}"))
        message = Message(job, fields.get("b", ""), 0, handle, received_ms)
        if body.get("poison"):
            queue.fail(message, "poison: this job fails for every worker")
            pipe = self.r.pipeline()
            self._count(pipe, "failed_poison")
            pipe.execute()
            self._mine(pid, "failed", 1)
            return "poison"
        # Lost when the timeout ran out (a receive claims a job idle for the timeout or more,
        # hence >=), or when it went to another phone since: the stream entry is the same one
        # after a redelivery, so an ack by the first phone would ack the second's delivery.
        late = now_ms(self.r) - received_ms >= queue.visibility_timeout_s * 1000
        if late or self.receivers(job)[-1:] != [pid] or not queue.ack(message):
            self._mine(pid, "lost", 1)
            return "lost"
        pipe = self.r.pipeline()
        self._count(pipe, "acked")
        pipe.execute()
        first = self.r.sadd(self.ns.key("charged"), body["key"])
        self.r.pexpire(self.ns.key("charged"), self.ns.ttl_ms)
        pipe = self.r.pipeline()
        self._count(pipe, "charged" if first else "duplicates_caught")
        pipe.execute()
        self._mine(pid, "acked", 1)
        return "acked" if first else "duplicate"

    def holding(self, pid: str) -> list[str]:
        """The jobs phone `pid` holds now (received, not yet finished)."""
        return sorted(j.decode() for j in self.r.hkeys(self.ns.key("held", pid)))

    def receivers(self, job: str) -> list[str]:
        return [p.decode() for p in self.r.lrange(self.ns.key("who", job), 0, -1)]

    def _mine(self, pid: str, name: str, by: int) -> None:
        key = self.ns.key("mine", pid)
        self.r.hincrby(key, name, by)
        self.r.pexpire(key, self.ns.ttl_ms)

    def mine(self, pid: str) -> dict[str, int]:
        raw = self.r.hgetall(self.ns.key("mine", pid))
        return {k.decode(): int(v) for k, v in raw.items()}

    def reading(self) -> dict[str, Any]:
        stats = self.queue().stats()
        counts = self.counts()
        return {
            "visible": stats.visible,
            "in_flight": stats.in_flight,
            "oldest_ms": round((stats.oldest_age_s or 0) * 1000),
            "dlq": stats.dlq_depth,
            "redeliveries": stats.duplicates_delivered + stats.retried,
            "done": stats.done,
            **counts,
        }
