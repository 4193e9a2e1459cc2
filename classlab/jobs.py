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


def _settings(raw: dict[bytes, bytes]) -> dict[str, int]:
    return {**DEFAULTS, **{k.decode(): int(v) for k, v in raw.items()}}


def _record(raw: dict[bytes, bytes]) -> dict[str, int]:
    return {k.decode(): int(v) for k, v in raw.items()}


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
        return _settings(self.r.hgetall(self.ns.key("jcfg")))

    def queue(self, cfg: dict[str, int] | None = None, *, create: bool = True) -> RedisQueue:
        """The queue with the settings `cfg` (read now if not given). A phone's call passes
        `create=False`: the group was made at the start and the worker's arrivals keep it."""
        cfg = cfg or self.settings()
        return RedisQueue(
            self.r,
            self.ns,
            visibility_timeout_s=cfg["visibility_ms"] / 1000,
            max_receives=cfg["receive_limit"],
            retention_s=3600.0,
            create=create,
        )

    def phone(self, pid: str) -> tuple[list[str], dict[str, int], dict[str, int]]:
        """What a phone's call reads first, in one round trip: the jobs phone `pid` holds,
        its record and the settings."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hkeys(self.ns.key("held", pid))
        pipe.hgetall(self.ns.key("mine", pid))
        pipe.hgetall(self.ns.key("jcfg"))
        held, mine, cfg = pipe.execute()
        return sorted(j.decode() for j in held), _record(mine), _settings(cfg)

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

    def take(self, pid: str, cfg: dict[str, int] | None = None) -> dict[str, Any] | None:
        """Give phone `pid` one job (one whose timeout ran out first), or None. `cfg`: the
        settings, when the caller read them already (`phone`)."""
        got = self.queue(cfg, create=False).receive(pid, 1)
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
        self._mine(pipe, pid, "received")
        pipe.execute()
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
        Three to five round trips: the phone's note and the settings; the job, the clock
        and who received it; the ack (or the failure); the counts, in one or two.
        """
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(self.ns.key("held", pid), job)
        pipe.hdel(self.ns.key("held", pid), job)
        pipe.hgetall(self.ns.key("jcfg"))
        note, _deleted, cfg = pipe.execute()
        if note is None:
            raise ValueError(f"job {job!r} was never delivered to this phone")
        handle, received = note.decode().split("|")
        received_ms = int(received)
        queue = self.queue(_settings(cfg), create=False)
        pipe = self.r.pipeline(transaction=False)
        pipe.xrange(self.ns.key("q"), handle, handle)
        pipe.time()
        pipe.lrange(self.ns.key("who", job), 0, -1)
        raw, (seconds, micros), who = pipe.execute()
        if not raw:
            return self._noted(pid, "lost")
        fields = {k.decode(): v.decode() for k, v in raw[0][1].items()}
        body = json.loads(fields.get("b", "{}"))
        message = Message(job, fields.get("b", ""), 0, handle, received_ms)
        if body.get("poison"):
            queue.fail(message, "poison: this job fails for every worker")
            return self._noted(pid, "poison", "failed", "failed_poison")
        # Lost when the timeout ran out (a receive claims a job idle for the timeout or more,
        # hence >=), or when it went to another phone since: the stream entry is the same one
        # after a redelivery, so an ack by the first phone would ack the second's delivery.
        now = int(seconds) * 1000 + int(micros) // 1000
        late = now - received_ms >= queue.visibility_timeout_s * 1000
        receivers = [p.decode() for p in who]
        if late or receivers[-1:] != [pid] or not queue.ack(message):
            return self._noted(pid, "lost")
        pipe = self.r.pipeline()
        self._count(pipe, "acked")
        pipe.sadd(self.ns.key("charged"), body["key"])
        pipe.pexpire(self.ns.key("charged"), self.ns.ttl_ms)
        first = pipe.execute()[2]
        return self._noted(
            pid,
            "acked" if first else "duplicate",
            "acked",
            "charged" if first else "duplicates_caught",
        )

    def _noted(self, pid: str, result: str, mine: str = "", count: str = "") -> str:
        """Note `result` in the phone's record (as `mine`) and the counters (as `count`)."""
        pipe = self.r.pipeline()
        if count:
            self._count(pipe, count)
        self._mine(pipe, pid, mine or result)
        pipe.execute()
        return result

    def receivers(self, job: str) -> list[str]:
        return [p.decode() for p in self.r.lrange(self.ns.key("who", job), 0, -1)]

    def _mine(self, pipe: Any, pid: str, name: str) -> None:
        key = self.ns.key("mine", pid)
        pipe.hincrby(key, name, 1)
        pipe.pexpire(key, self.ns.ttl_ms)

    def mine(self, pid: str) -> dict[str, int]:
        return _record(self.r.hgetall(self.ns.key("mine", pid)))

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
