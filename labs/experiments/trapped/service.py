"""The trapped service's request queue on Redis: one list, oldest at the tail, and its scripts.

Why a plain list and not the SQS-like stream of `labs.experiments.queue`: this service has
no visibility timeout or redelivery to show. What it needs is a bounded queue that a worker
can take from at either end - the oldest request (FIFO) for an ordinary worker, the newest
for a worker kept for fresh requests - and a blocking take, so an idle worker wakes the
moment a request arrives instead of polling. A list gives all three.

A queued request is the string `attempt|sent_ms|deadline_ms|first_ms|operation_id`
(first_ms: when the call's first attempt was sent; no operation id for a read). The set
`waiting` holds the attempts whose caller still waits: the caller removes its attempt when
its timeout fires, a worker when it answers, and whichever comes first decides whether
the work was useful. Every step that touches a payment changes the
ledger in the same script (`labs.experiments.trapped.ledger`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import redis

from labs.experiments.namespace import Namespace
from labs.experiments.trapped.ledger import LEDGER_KEYS, RedisLedger, ledger_prelude, touch_lua

# Codes the send script returns for each attempt.
ADMITTED, REFUSED_429, FULL_503 = 1, 2, 3
# Keys the scripts take, in this order, before the ledger's.
_QUEUE_KEYS = ("q", "waiting", "admit", "stats")
_FIRST_LEDGER_KEY = len(_QUEUE_KEYS) + 1

_PARSE = """
local function parse(item)
  local att, sent, deadline, first, op = string.match(item, '^([^|]*)|(%d+)|(%d+)|(%d+)|(.*)$')
  return att, tonumber(sent), tonumber(deadline), op, tonumber(first)
end
"""

# ARGV: ttl_ms, timeout_ms, queue_limit, admit_epoch (0 = no limit), admit_per_ms,
# admit_burst, then (attempt, operation id, new payment 0/1, the call's first attempt's
# Redis ms or 0 for this one) quadruples.
_SEND = (
    ledger_prelude(_FIRST_LEDGER_KEY)
    + """
local q, waiting, admit = KEYS[1], KEYS[2], KEYS[3]
local timeout, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local epoch, per_ms, burst = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local tokens = 0
if epoch ~= '0' then
  local b = redis.call('HMGET', admit, 'epoch', 'tokens', 'at')
  if b[1] == epoch then
    tokens = math.min(burst, tonumber(b[2]) + (now - tonumber(b[3])) * per_ms)
  else
    tokens = burst  -- the limit was (re)switched on: start with a full bucket
  end
end
local out = {now}
local length = redis.call('LLEN', q)
for i = 7, #ARGV, 4 do
  local att, op = ARGV[i], ARGV[i + 1]
  local first = ARGV[i + 3]
  if first == '0' then first = now end
  if ARGV[i + 2] == '1' then pay_new(op) end
  local code = 1
  if epoch ~= '0' then
    if tokens >= 1 then tokens = tokens - 1 else code = 2 end
  end
  if code == 1 and length >= limit then code = 3 end
  if code == 1 then
    redis.call('LPUSH', q, att .. '|' .. now .. '|' .. (now + timeout) .. '|' .. first .. '|' .. op)
    redis.call('SADD', waiting, att)
    if op ~= '' then redis.call('HINCRBY', L.live, op, 1) end
    length = length + 1
  end
  out[#out + 1] = code
end
if epoch ~= '0' then
  redis.call('HSET', admit, 'epoch', epoch, 'tokens', tokens, 'at', now)
end
"""
    + touch_lua("ARGV[1]")
    + "return out\n"
)

# A worker's one round trip per request: answer the request it just finished (if any),
# then take the next one. ARGV: ttl_ms, then the answer (attempt, operation id, sent_ms,
# first_ms; '' for none), then how to take: 'oldest', 'fresh' or 'none', an item already
# popped ('' = pop here), dropping, payments may go, reconcile, delay_ms, max_discards.
# Returns {now, useful (1/0, -1 = no answer), ms since the answered one was sent, ms since
# its call's first attempt, the item to serve or '', discarded, payments discarded}.
_NEXT = (
    ledger_prelude(_FIRST_LEDGER_KEY)
    + _PARSE
    + """
local q, waiting, stats = KEYS[1], KEYS[2], KEYS[4]
local useful, latency, call_wait = -1, 0, 0
if ARGV[2] ~= '' then
  useful = redis.call('SREM', waiting, ARGV[2])
  latency = now - tonumber(ARGV[4])
  call_wait = now - tonumber(ARGV[5])
  redis.call('HINCRBY', stats, 'busy', -1)
  if ARGV[3] ~= '' then pay_served(ARGV[3], useful == 1) end
end
local item, dropped, dropped_pay = nil, 0, 0
if ARGV[6] == 'none' then
  item = nil  -- a worker leaving: it only answers
elseif ARGV[6] == 'fresh' then
  -- A reserved worker takes the newest request, and only while its caller still waits.
  local newest = redis.call('LINDEX', q, 0)
  if newest then
    local _, _, deadline = parse(newest)
    if now < deadline then item = redis.call('LPOP', q) end
  end
else
  local dropping, pay_go, reconcile = ARGV[8] == '1', ARGV[9] == '1', ARGV[10] == '1'
  local delay, most = tonumber(ARGV[11]), tonumber(ARGV[12])
  if ARGV[7] ~= '' then item = ARGV[7] else item = redis.call('RPOP', q) end
  while item do
    local att, _, deadline, op = parse(item)
    if not (dropping and now >= deadline and (op == '' or pay_go)) then break end
    -- Its caller has gone: checking and throwing it away is all the work it gets.
    redis.call('SREM', waiting, att)
    if op ~= '' then
      pay_discarded(op, reconcile, delay)
      dropped_pay = dropped_pay + 1
    end
    dropped = dropped + 1
    if dropped >= most then item = nil else item = redis.call('RPOP', q) end
  end
end
if item then redis.call('HINCRBY', stats, 'busy', 1) end
"""
    + touch_lua("ARGV[1]")
    + "return {now, useful, latency, call_wait, item or '', dropped, dropped_pay}\n"
)

# Callers whose timeout fired. ARGV: attempts. Returns 1 per attempt the caller gave up on
# (nobody had answered), 0 if a worker answered first.
_EXPIRE = """
local out = {}
for i = 1, #ARGV do out[i] = redis.call('SREM', KEYS[2], ARGV[i]) end
return out
"""

# Callers out of attempts. ARGV: ttl_ms, reconcile, delay_ms, operation ids.
_GAVE_UP = (
    ledger_prelude(_FIRST_LEDGER_KEY)
    + """
local reconcile, delay = ARGV[2] == '1', tonumber(ARGV[3])
for i = 4, #ARGV do pay_gave_up(ARGV[i], reconcile, delay) end
"""
    + touch_lua("ARGV[1]")
    + "return #ARGV - 3\n"
)

# Returns {now, queued, in service, the oldest queued request or ''}.
_STATS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local busy = tonumber(redis.call('HGET', KEYS[4], 'busy') or '0')
return {now, redis.call('LLEN', KEYS[1]), busy, redis.call('LINDEX', KEYS[1], -1) or ''}
"""


@dataclass(frozen=True)
class Request:
    """One attempt as a worker holds it."""

    attempt: str
    sent_ms: int
    deadline_ms: int
    first_ms: int  # when the call's first attempt was sent
    operation_id: str  # '' for a read

    @classmethod
    def parse(cls, item: str) -> Request:
        attempt, sent, deadline, first, op = item.split("|", 4)
        return cls(attempt, int(sent), int(deadline), int(first), op)


@dataclass(frozen=True)
class Next:
    """A worker's step: the answer it gave (if any), the request it took (if any)."""

    now_ms: int
    answered: bool  # it answered a request
    useful: bool  # ... whose caller still waited
    latency_ms: int  # ... this long after it was sent (Redis time)
    call_ms: int  # ... this long after its call's first attempt
    request: Request | None
    discarded: int
    discarded_payments: int


@dataclass(frozen=True)
class ServiceStats:
    """One reading of the service: queued, in service, the oldest queued request's age."""

    now_ms: int
    queued: int
    in_service: int
    oldest_age_ms: int

    @property
    def backlog(self) -> int:
        return self.queued + self.in_service


class ServiceQueue:
    """The request queue, the callers' waiting set and the admission bucket of one run."""

    def __init__(self, r: redis.Redis, namespace: Namespace) -> None:
        self.r = r
        self.ns = namespace
        self.queue_keys = [namespace.key(k) for k in _QUEUE_KEYS]
        self.ledger = RedisLedger(r, namespace)
        self.keys = self.queue_keys + self.ledger.keys
        assert len(self.ledger.keys) == len(LEDGER_KEYS)
        self._send = r.register_script(_SEND)
        self._next = r.register_script(_NEXT)
        self._expire = r.register_script(_EXPIRE)
        self._gave_up = r.register_script(_GAVE_UP)
        self._stats = r.register_script(_STATS)

    def with_client(self, r: redis.Redis) -> ServiceQueue:
        """The same queue through another connection (one per thread)."""
        return ServiceQueue(r, self.ns)

    @property
    def ttl_ms(self) -> int:
        return self.ns.ttl_ms

    def send(
        self,
        attempts: Sequence[tuple[str, str, bool, int]],
        *,
        timeout_ms: int,
        queue_limit: int,
        admit_epoch: int = 0,
        admit_per_ms: float = 0.0,
        admit_burst: float = 1.0,
    ) -> tuple[int, list[int]]:
        """Offer `(attempt, operation id, new payment, first attempt's ms or 0)` attempts.

        Returns the Redis ms they were offered at and a code for each.

        `admit_epoch` 0 means no admission limit; any other number is the limit's current
        switch-on, and a new number starts the bucket full.
        """
        args: list[object] = [
            self.ttl_ms,
            timeout_ms,
            queue_limit,
            admit_epoch,
            repr(admit_per_ms),
            repr(max(1.0, admit_burst)),
        ]
        for attempt, op, new_payment, first_ms in attempts:
            args += [attempt, op, "1" if new_payment else "0", first_ms]
        reply = self._send(keys=self.keys, args=args)
        return int(reply[0]), [int(c) for c in reply[1:]]

    def pop_oldest(self, timeout_s: float) -> str | None:
        """Wait up to `timeout_s` for the oldest request and take it off the queue."""
        got = self.r.brpop([self.queue_keys[0]], timeout=timeout_s)
        return None if got is None else got[1].decode()

    def next(
        self,
        answer: Request | None,
        *,
        fresh: bool = False,
        take: bool = True,
        popped: str = "",
        dropping: bool = False,
        payments_may_go: bool = False,
        reconcile: bool = False,
        reconcile_delay_ms: int = 0,
        max_discards: int = 50,
    ) -> Next:
        """Answer `answer` and take the next request, in one round trip.

        `take` False: only answer (a worker leaving the pool).
        `fresh`: the newest request if its caller still waits (a reserved worker).
        Otherwise the oldest (`popped`, if the worker already took it with `pop_oldest`),
        and if `dropping`, the expired ones before it are thrown away.
        """
        args: list[object] = [self.ttl_ms]
        if answer is None:
            args += ["", "", 0, 0]
        else:
            args += [answer.attempt, answer.operation_id, answer.sent_ms, answer.first_ms]
        args += [
            ("fresh" if fresh else "oldest") if take else "none",
            popped,
            int(dropping),
            int(payments_may_go),
            int(reconcile),
            reconcile_delay_ms,
            max_discards,
        ]
        reply = self._next(keys=self.keys, args=args)
        now, useful, latency, call_ms, item, dropped, dropped_pay = reply
        return Next(
            now_ms=int(now),
            answered=int(useful) >= 0,
            useful=int(useful) == 1,
            latency_ms=int(latency),
            call_ms=int(call_ms),
            request=Request.parse(item.decode()) if item else None,
            discarded=int(dropped),
            discarded_payments=int(dropped_pay),
        )

    def expire(self, attempts: Sequence[str]) -> list[bool]:
        """Callers' timeouts fired: True for each attempt nobody had answered."""
        if not attempts:
            return []
        return [bool(x) for x in self._expire(keys=self.keys, args=list(attempts))]

    def gave_up(self, operation_ids: Sequence[str], *, reconcile: bool, delay_ms: int) -> None:
        """Callers of these payments ran out of attempts without an answer."""
        if operation_ids:
            self._gave_up(
                keys=self.keys, args=[self.ttl_ms, int(reconcile), delay_ms, *operation_ids]
            )

    def stats(self) -> ServiceStats:
        """Queued, in service and the oldest queued request's age, in one round trip."""
        now, queued, busy, oldest = self._stats(keys=self.keys, args=[])
        age = int(now) - Request.parse(oldest.decode()).sent_ms if oldest else 0
        return ServiceStats(int(now), int(queued), max(0, int(busy)), max(0, age))
