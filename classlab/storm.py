"""Scenario 1 on the real Redis: a service with N slots behind a queue, phones as its clients.

Django-free: it takes a Redis client and the experiment's `Namespace`. Keys (all under the
namespace, each written with its TTL):

- `cfg` (hash): the teacher's settings, read by every web process and by the worker;
- `q` (list): requests waiting, each `rid|pid|sent_ms`;
- `slots` (hash): slot number -> `rid|pid|sent_ms|finish_ms` of the request in service;
- `res` (hash): rid -> the Redis time its answer was ready;
- `p:<pid>` (string): a phone's `ClientState` and outstanding requests, as JSON;
- `n` (hash): the counters (see `COUNTERS`);
- `brk` (hash): pid -> the breaker state the phone last reported.

Two ledgers hold: on the phones' side every request sent is answered, expired (waited past
the timeout), failed (refused by the admission limit) or still in flight; on the service's
side every request queued is served in time, served late (work nobody waits for any more),
dropped as expired, or still queued or in service.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import redis

from classlab.policy import (
    ClientState,
    Policy,
    Retry,
    check_policy,
    due_retries,
    may_send,
    note_original,
    note_outcome,
    plan_retry,
)
from labs.experiments.namespace import Namespace

DEFAULTS: dict[str, Any] = {
    "policy": "immediate",
    "pace_per_min": 30,  # first sends per phone per minute, sent by the page by itself
    "spike": 1,  # the pace is multiplied by this while a spike is on
    "slow": 1,  # the service time is multiplied by this while the service is slowed
    "slots": 4,
    "service_ms": 200,
    "timeout_ms": 2000,
    "admission": 200,  # the most requests the queue takes; more are refused at once
    "drop_expired": 0,  # 1: the service drops a request that already waited past the timeout
}
LIMITS: dict[str, tuple[int, int]] = {
    "pace_per_min": (0, 120),
    "spike": (1, 10),
    "slow": (1, 10),
    "slots": (1, 32),
    "service_ms": (10, 5000),
    "timeout_ms": (200, 30000),
    "admission": (1, 5000),
    "drop_expired": (0, 1),
}
COUNTERS = (
    "sent",
    "original",
    "retry",
    "answered",
    "expired",
    "failed",
    "fast_fail",
    "gave_up",
    "capped",
    "taps",
    "enqueued",
    "served_ok",
    "served_late",
    "dropped",
)
MAX_OUTSTANDING = 8  # requests one phone may have in flight; more first sends are not sent
MAX_SENDS_PER_S = 6  # sends (first or retry) one phone may make in a second
MAX_TAPS = 3  # extra first sends one tap-press may ask for
PACE_CREDIT_MAX = 3.0  # a phone that went quiet does not come back with a burst

LOCK_MS = 2000  # a phone's call holds its lock at most this long (a call that died)

# KEYS: q, n. ARGV: admission, ttl_ms, then one entry per request sent. Each entry is queued
# while the queue holds fewer than `admission`; returns 1 (queued) or 0 (refused) for each.
_ENQUEUE = """
local queued, out = 0, {}
for i = 3, #ARGV do
  if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[1]) then
    out[#out + 1] = 0
  else
    redis.call('RPUSH', KEYS[1], ARGV[i])
    queued = queued + 1
    out[#out + 1] = 1
  end
end
if queued > 0 then
  redis.call('HINCRBY', KEYS[2], 'enqueued', queued)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return out
"""


class Busy(Exception):
    """Another call of the same phone is being answered: one at a time from each phone."""


def check_settings(values: dict[str, Any]) -> dict[str, Any]:
    """The settings with each number within its bounds; a bad one raises ValueError."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name == "policy":
            out[name] = check_policy(str(value))
            continue
        if name not in LIMITS:
            raise ValueError(f"unknown setting {name!r}")
        low, high = LIMITS[name]
        number = int(value)
        if not low <= number <= high:
            raise ValueError(f"{name} must be between {low} and {high}, got {number}")
        out[name] = number
    return out


def _settings(raw: dict[bytes, bytes]) -> dict[str, Any]:
    """The settings as `cfg` holds them (HGETALL), over the defaults."""
    out: dict[str, Any] = dict(DEFAULTS)
    for name, value in raw.items():
        out[name.decode()] = value.decode() if name == b"policy" else int(value)
    return out


def now_ms(r: redis.Redis) -> int:
    """Redis's clock: every web and worker process reads the same one."""
    seconds, micros = r.time()
    return int(seconds) * 1000 + int(micros) // 1000


class Storm:
    """The service, its queue and its clients' states for one experiment."""

    def __init__(self, r: redis.Redis, ns: Namespace) -> None:
        self.r = r
        self.ns = ns
        self.q = ns.key("q")
        self.n = ns.key("n")
        self._enqueue = r.register_script(_ENQUEUE)

    # -- settings ------------------------------------------------------------------------

    def setup(self, settings: dict[str, Any]) -> None:
        self.set(**{**DEFAULTS, **settings})
        pipe = self.r.pipeline()
        for name in COUNTERS:
            pipe.hsetnx(self.n, name, 0)
        pipe.pexpire(self.n, self.ns.ttl_ms)
        pipe.execute()

    def set(self, **values: Any) -> None:
        """Change settings live (the teacher's controls); checked first."""
        checked = check_settings(values)
        key = self.ns.key("cfg")
        self.r.hset(key, mapping={k: str(v) for k, v in checked.items()})
        self.r.pexpire(key, self.ns.ttl_ms)

    def settings(self) -> dict[str, Any]:
        return _settings(self.r.hgetall(self.ns.key("cfg")))

    def counts(self) -> dict[str, int]:
        raw = self.r.hgetall(self.n)
        return {name: int(raw.get(name.encode(), 0)) for name in COUNTERS}

    def touch(self) -> None:
        """Keep the experiment's keys alive while it runs."""
        pipe = self.r.pipeline()
        for key in ("cfg", "q", "slots", "res", "n", "brk"):
            pipe.pexpire(self.ns.key(key), self.ns.ttl_ms)
        pipe.execute()

    # -- a phone's request ---------------------------------------------------------------

    def tick(self, pid: str, *, taps: int = 0, seed: int | None = None) -> dict[str, Any]:
        """One call from phone `pid`: settle its requests, retry by the policy, send what is due.

        The phone asks; the server decides how many first sends are due (the pace since the
        phone's last call, times the spike, plus at most `MAX_TAPS` taps) and which retries
        the policy allows, and caps the phone at `MAX_SENDS_PER_S` and `MAX_OUTSTANDING`.
        The call holds the phone's lock, so two calls of one phone never interleave: `Busy`
        while another holds it. A class's phones make about a hundred calls a second, so a
        call is four round trips to Redis: lock and reads; answers and the phone's rate;
        the sends, queued by one script; the writes and the unlock.
        """
        if not 0 <= taps <= MAX_TAPS:
            raise ValueError(f"taps must be between 0 and {MAX_TAPS}, got {taps}")
        key, lock = self.ns.key("p", pid), self.ns.key("lock", pid)
        pipe = self.r.pipeline(transaction=False)
        pipe.set(lock, "1", nx=True, px=LOCK_MS)
        pipe.hgetall(self.ns.key("cfg"))
        pipe.time()
        pipe.get(key)
        # The lock is taken before the phone's state is read, in the same pipeline: a call
        # that gets the lock reads what the call before it wrote (it unlocked after writing).
        locked, cfg, (seconds, micros), raw = pipe.execute()
        if not locked:
            raise Busy(pid)
        try:
            now = int(seconds) * 1000 + int(micros) // 1000
            return self._tick(pid, _settings(cfg), now, raw, taps, seed)
        except BaseException:
            self.r.delete(lock)
            raise

    def _tick(
        self, pid: str, cfg: dict[str, Any], now: int, raw: bytes | None, taps: int, seed
    ) -> dict[str, Any]:
        policy: Policy = check_policy(cfg["policy"])
        mine: dict[str, Any] = json.loads(raw) if raw else {}
        state = ClientState.from_json(mine.get("client", {}))
        out: dict[str, list[Any]] = mine.get("out", {})  # rid -> [origin, attempt, sent_ms]
        record: dict[str, int] = mine.get("record", {})
        last = int(mine.get("last_ms", now))
        credit = float(mine.get("credit", 0.0))
        seq = int(mine.get("seq", 0))
        rng = random.Random(seed if seed is not None else hash((pid, now)))
        bump: dict[str, int] = {}

        def count(name: str, by: int = 1) -> None:
            bump[name] = bump.get(name, 0) + by
            record[name] = record.get(name, 0) + by

        rids = list(out)
        rate_key = self.ns.key("rate", pid, str(now // 1000))
        pipe = self.r.pipeline(transaction=False)
        if rids:
            pipe.hmget(self.ns.key("res"), rids)
        pipe.get(rate_key)
        *answered, used_now = pipe.execute()
        answers = answered[0] if rids else []

        # 1. Settle: answered in time, or waited past the timeout, or refused.
        for rid, answer in zip(rids, answers, strict=True):
            origin, attempt, sent = out[rid]
            if sent < 0:  # refused by the admission limit when it was sent
                outcome = "failed"
            elif answer is not None and int(answer) - sent <= cfg["timeout_ms"]:
                outcome = "answered"
            elif now - sent > cfg["timeout_ms"]:
                outcome = "expired"
            else:
                continue
            del out[rid]
            count(outcome)
            note_outcome(policy, state, now, outcome == "answered")
            if (
                outcome != "answered"
                and plan_retry(policy, state, origin, attempt, now, rng) is None
            ):
                count("gave_up")

        # 2. What is due: retries whose wait is over, then first sends by the pace.
        pace_per_ms = cfg["pace_per_min"] * cfg["spike"] / 60_000
        credit = min(PACE_CREDIT_MAX, credit + max(0, now - last) * pace_per_ms)
        firsts = int(credit)
        credit -= firsts
        count("taps", taps)
        firsts += taps
        sends: list[tuple[str, int]] = [(w.origin, w.attempt) for w in due_retries(state, now)]
        sends += [("", 0)] * firsts

        # 3. Send, within the phone's caps and its breaker: every send queued by one script.
        used = int(used_now or 0)
        sent_now: list[tuple[str, str, int]] = []  # rid, origin, attempt
        for origin, attempt in sends:
            if used + len(sent_now) >= MAX_SENDS_PER_S or len(out) + len(sent_now) >= (
                MAX_OUTSTANDING
            ):
                if attempt == 0:
                    count("capped")  # a first send the caps kept back: never sent
                else:
                    # a retry the caps kept back waits a second more, still counted as waiting
                    state.waiting.append(Retry(origin, attempt, now + 1000))
                continue
            if not may_send(policy, state, now):
                count("fast_fail")
                if attempt == 0:
                    continue
                count("gave_up")
                continue
            seq += 1
            rid = f"{pid}.{seq}"
            if attempt == 0:
                count("original")
                note_original(policy, state)
            else:
                count("retry")
            count("sent")
            sent_now.append((rid, origin or rid, attempt))
        if sent_now:
            queued = self._enqueue(
                keys=[self.q, self.n],
                args=[cfg["admission"], self.ns.ttl_ms]
                + [f"{rid}|{pid}|{now}" for rid, _origin, _attempt in sent_now],
            )
            for (rid, origin, attempt), ok in zip(sent_now, queued, strict=True):
                out[rid] = [origin, attempt, now if ok else -1]

        # 4. Write it all down, then let the phone's next call in.
        pipe = self.r.pipeline()
        if sent_now:
            pipe.incrby(rate_key, len(sent_now))
            pipe.pexpire(rate_key, 2000)
        for name, by in bump.items():
            pipe.hincrby(self.n, name, by)
        pipe.hset(self.ns.key("brk"), pid, state.breaker_state)
        pipe.set(
            self.ns.key("p", pid),
            json.dumps(
                {
                    "client": state.to_json(),
                    "out": out,
                    "record": record,
                    "last_ms": now,
                    "credit": credit,
                    "seq": seq,
                }
            ),
            px=self.ns.ttl_ms,
        )
        pipe.delete(self.ns.key("lock", pid))
        pipe.execute()
        return {
            "record": record,
            "in_flight": len(out),
            "waiting": len(state.waiting),
            "breaker": state.breaker_state,
            "policy": policy,
        }

    def phones(self) -> dict[str, dict[str, Any]]:
        """Every phone's saved state, by participant id."""
        out: dict[str, dict[str, Any]] = {}
        for key in self.r.scan_iter(match=self.ns.key("p", "*"), count=1000):
            out[key.decode().rsplit(":", 1)[1]] = json.loads(self.r.get(key) or "{}")
        return out

    # -- the service ---------------------------------------------------------------------

    def serve(self) -> int:
        """One turn of the service: finish what is done, start what waits. Returns starts.

        A slot that finished at f starts its next request at f, not at the moment this turn
        runs, so the capacity is slots / service time whatever the worker's own delays.
        Only one worker turns one experiment's service (the experiment's lease).
        """
        cfg = self.settings()
        now = now_ms(self.r)
        service = cfg["service_ms"] * cfg["slow"]
        slots_key, res_key = self.ns.key("slots"), self.ns.key("res")
        slots = {int(k): v.decode() for k, v in self.r.hgetall(slots_key).items()}
        pipe = self.r.pipeline()
        starts = 0
        for slot in range(cfg["slots"]):
            free_at = now
            if slot in slots:
                rid, _pid, sent, finish = slots[slot].split("|")
                if int(finish) > now:
                    continue
                pipe.hset(res_key, rid, finish)
                late = int(finish) - int(sent) > cfg["timeout_ms"]
                pipe.hincrby(self.n, "served_late" if late else "served_ok", 1)
                free_at = int(finish)
                del slots[slot]
            while True:
                raw = self.r.lpop(self.q)
                if raw is None:
                    pipe.hdel(slots_key, slot)
                    break
                rid, pid, sent = raw.decode().split("|")
                if cfg["drop_expired"] and free_at - int(sent) > cfg["timeout_ms"]:
                    pipe.hincrby(self.n, "dropped", 1)
                    continue
                finish = free_at + service
                if finish <= now:  # done already within this turn: answer and go on
                    pipe.hset(res_key, rid, finish)
                    late = finish - int(sent) > cfg["timeout_ms"]
                    pipe.hincrby(self.n, "served_late" if late else "served_ok", 1)
                    free_at = finish
                    starts += 1
                    continue
                pipe.hset(slots_key, slot, f"{rid}|{pid}|{sent}|{finish}")
                starts += 1
                break
        # Slots beyond a lowered slot count finish their request and stay empty.
        pipe.pexpire(res_key, self.ns.ttl_ms)
        pipe.pexpire(slots_key, self.ns.ttl_ms)
        pipe.execute()
        return starts

    def reading(self) -> dict[str, Any]:
        """The service now: backlog, age of the oldest waiting request, busy slots, breakers."""
        now = now_ms(self.r)
        pipe = self.r.pipeline()
        pipe.llen(self.q)
        pipe.lindex(self.q, 0)
        pipe.hlen(self.ns.key("slots"))
        pipe.hvals(self.ns.key("brk"))
        backlog, head, busy, breakers = pipe.execute()
        oldest = 0 if head is None else max(0, now - int(head.decode().split("|")[2]))
        states = [b.decode() for b in breakers]
        return {
            "now_ms": now,
            "backlog": int(backlog),
            "oldest_ms": oldest,
            "busy": int(busy),
            "breakers_open": states.count("open"),
            "breakers_half_open": states.count("half-open"),
            "breakers_closed": states.count("closed"),
        }


def ledger(storm: Storm) -> dict[str, int]:
    """Both ledgers, from the counters and from what the phones and the service hold now."""
    counts = storm.counts()
    in_flight = sum(len(p.get("out", {})) for p in storm.phones().values())
    reading = storm.reading()
    return {
        **counts,
        "in_flight": in_flight,
        "phones_settled": counts["answered"] + counts["expired"] + counts["failed"] + in_flight,
        "service_settled": counts["served_ok"]
        + counts["served_late"]
        + counts["dropped"]
        + reading["backlog"]
        + reading["busy"],
    }


@dataclass(frozen=True)
class Verdict:
    """What the service reports about itself: trapped, or drained."""

    drained: bool
    backlog: int
    oldest_ms: int


def verdict(storm: Storm) -> Verdict:
    """Drained when the oldest waiting request is younger than the timeout; else trapped."""
    cfg = storm.settings()
    reading = storm.reading()
    return Verdict(
        reading["oldest_ms"] < cfg["timeout_ms"], reading["backlog"], reading["oldest_ms"]
    )
