"""A queue with Amazon SQS's rules, built on one Redis stream and its consumer group.

Why a stream: the consumer group already keeps, for every message handed out and not yet
acknowledged, who holds it, how long ago it was handed out (its idle time) and how many times
it has been delivered. Those three facts are SQS's in-flight state, visibility timeout and
receive count, so the queue only adds the rules on top (see docs/queue-design.md):

- receive: first reclaim messages whose visibility timeout ran out (XAUTOCLAIM with the
  timeout as its minimum idle time, which adds one to their delivery count), then read new
  ones (XREADGROUP). A reclaimed message already received `max_receives` times goes to the
  dead-letter queue instead of being handed out again;
- acknowledge: XACK and XDEL, so the stream holds only messages not done yet;
- retention: entries older than the retention period are deleted, done or not, and counted;
- every step runs in one Lua script, so two workers never see a message half moved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import redis

from labs.experiments.limits import check_float, check_int
from labs.experiments.namespace import Namespace

GROUP = "workers"
SQS_DEFAULT_VISIBILITY_S = 30.0
SQS_DEFAULT_RETENTION_S = 4 * 24 * 3600.0
SQS_MAX_RETENTION_S = 14 * 24 * 3600.0
SEND_CHUNK = 500
ACK_CHUNK = 1000

# Redis's own clock in ms, for every script that stamps a time: the workers' clocks may
# differ, the server's is one (the FIFO queue's scripts start with it too).
LUA_NOW_MS = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

_LUA_HELPERS = (
    LUA_NOW_MS
    + """local function fields(list)
  local h = {}
  for i = 1, #list, 2 do h[list[i]] = list[i + 1] end
  return h
end
local function entry_ms(id) return tonumber(string.match(id, '^(%d+)')) end
-- Retention: delete every entry older than `keep` ms, in flight or not, and count it.
local function sweep(q, group, expired, stats, keep, now, ttl)
  if keep <= 0 then return 0 end
  local n = 0
  while true do
    local old = redis.call('XRANGE', q, '-', tostring(now - keep - 1), 'COUNT', 100)
    for _, e in ipairs(old) do
      redis.call('XACK', q, group, e[1])
      redis.call('XDEL', q, e[1])
      redis.call('SADD', expired, fields(e[2]).m)
      n = n + 1
    end
    if #old < 100 then break end
  end
  if n > 0 then
    redis.call('HINCRBY', stats, 'expired', n)
    redis.call('PEXPIRE', expired, ttl)
  end
  return n
end
"""
)

# KEYS: stream, stats. ARGV: ttl_ms, then msg_id, body pairs.
_SEND = """
local n = 0
for i = 2, #ARGV, 2 do
  redis.call('XADD', KEYS[1], '*', 'm', ARGV[i], 'b', ARGV[i + 1])
  n = n + 1
end
redis.call('HINCRBY', KEYS[2], 'sent', n)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return n
"""

# KEYS: stream, stats, dlq, dlq index, errors, expired set, claim cursor.
# ARGV: group, consumer, count, visibility_ms, max_receives, retention_ms, ttl_ms.
_RECEIVE = (
    _LUA_HELPERS
    + """
local q, stats, dlq, dlqidx = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local errors, expired, cursor = KEYS[5], KEYS[6], KEYS[7]
local group, consumer = ARGV[1], ARGV[2]
local want, vis, maxr = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local keep, ttl = tonumber(ARGV[6]), ARGV[7]
local now = now_ms()
sweep(q, group, expired, stats, keep, now, ttl)

local out, dead, again, retried = {}, 0, 0, 0
local start = redis.call('GET', cursor) or '0-0'
local claimed = redis.call('XAUTOCLAIM', q, group, consumer, vis, start, 'COUNT', want)
redis.call('SET', cursor, claimed[1], 'PX', ttl)
for _, e in ipairs(claimed[2]) do
  if e[2] then
    local id, f = e[1], fields(e[2])
    local n = redis.call('XPENDING', q, group, id, id, 1)[1][4]
    if n > maxr then
      -- Received max_receives times and still not done: park it with its last error.
      redis.call('XACK', q, group, id)
      redis.call('XDEL', q, id)
      local err = redis.call('HGET', errors, f.m) or ''
      local did = redis.call('XADD', dlq, '*', 'm', f.m, 'b', f.b, 'r', n - 1, 'e', err,
                             's', entry_ms(id))
      redis.call('HSET', dlqidx, f.m, did)
      dead = dead + 1
    else
      out[#out + 1] = {id, f.m, f.b, n}
      -- A retry after a failure its worker reported is not a duplicate delivery.
      if redis.call('HDEL', errors, 'retry:' .. f.m) == 1 then
        retried = retried + 1
      else
        again = again + 1
      end
    end
  end
end
if #out < want then
  local fresh = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', want - #out,
                           'STREAMS', q, '>')
  if fresh then
    for _, e in ipairs(fresh[1][2]) do
      local f = fields(e[2])
      out[#out + 1] = {e[1], f.m, f.b, 1}
    end
  end
end
if #out > 0 then
  redis.call('HINCRBY', stats, 'receives', #out)
  if again > 0 then redis.call('HINCRBY', stats, 'redelivered', again) end
  if retried > 0 then redis.call('HINCRBY', stats, 'retried', retried) end
end
if dead > 0 then
  redis.call('HINCRBY', stats, 'dead', dead)
  redis.call('PEXPIRE', dlq, ttl)
  redis.call('PEXPIRE', dlqidx, ttl)
end
redis.call('PEXPIRE', q, ttl)
redis.call('PEXPIRE', stats, ttl)
return {now, out}
"""
)

# KEYS: stream, stats, done set. ARGV: group, ttl_ms, then entry_id, msg_id pairs.
_ACK = """
local entries, ids = {}, {}
for i = 3, #ARGV, 2 do
  -- One XACK per entry: only those still pending were ours to finish.
  if redis.call('XACK', KEYS[1], ARGV[1], ARGV[i]) == 1 then
    entries[#entries + 1] = ARGV[i]
    ids[#ids + 1] = ARGV[i + 1]
  end
end
local n = #entries
if n > 0 then
  redis.call('XDEL', KEYS[1], unpack(entries))
  redis.call('SADD', KEYS[3], unpack(ids))
  redis.call('HINCRBY', KEYS[2], 'acked', n)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return n
"""

# KEYS: stream, stats, errors. ARGV: group, ttl_ms, entry_id, msg_id, error, idle_ms (-1 = keep).
_FAIL = """
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
redis.call('HINCRBY', KEYS[2], 'failures', 1)
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)[1]
if not p then return 0 end
-- Still this worker's: its next delivery is a retry, not a duplicate (see receive).
redis.call('HSET', KEYS[3], 'retry:' .. ARGV[4], 1)
local idle = tonumber(ARGV[6])
if idle >= 0 then
  -- Same owner, older idle time, JUSTID so the receive count does not move.
  redis.call('XCLAIM', KEYS[1], ARGV[1], p[2], 0, ARGV[3], 'IDLE', idle, 'JUSTID')
  return 1
end
return 0
"""

# KEYS: stream, stats, dlq, done set, expired set.
# ARGV: group, visibility_ms, retention_ms, ttl_ms.
_STATS = (
    _LUA_HELPERS
    + """
local q, stats, dlq, done, expired = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now = now_ms()
sweep(q, ARGV[1], expired, stats, tonumber(ARGV[3]), now, ARGV[4])
local length = redis.call('XLEN', q)
local pending, overdue = 0, 0
if length > 0 then
  pending = redis.call('XPENDING', q, ARGV[1])[1]
  if pending > 0 then
    overdue = #redis.call('XPENDING', q, ARGV[1], 'IDLE', ARGV[2], '-', '+', pending)
  end
end
local oldest = -1
local first = redis.call('XRANGE', q, '-', '+', 'COUNT', 1)
if first[1] then oldest = now - entry_ms(first[1][1]) end
return {now, length, pending, overdue, oldest, redis.call('XLEN', dlq),
        redis.call('SCARD', done), redis.call('SCARD', expired), redis.call('HGETALL', stats)}
"""
)

# KEYS: stream, stats, dlq, dlq index, errors. ARGV: ttl_ms, mode ('first' n | 'ids' id...).
_REDRIVE = (
    _LUA_HELPERS
    + """
local q, stats, dlq, dlqidx, errors = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local moved = {}
local function move(did)
  local e = redis.call('XRANGE', dlq, did, did)[1]
  if not e then return end
  local f = fields(e[2])
  local nid = redis.call('XADD', q, '*', 'm', f.m, 'b', f.b)
  redis.call('XDEL', dlq, did)
  redis.call('HDEL', dlqidx, f.m)
  redis.call('HDEL', errors, f.m, 'retry:' .. f.m)
  moved[#moved + 1] = {f.m, nid}
end
if ARGV[2] == 'first' then
  for _, e in ipairs(redis.call('XRANGE', dlq, '-', '+', 'COUNT', tonumber(ARGV[3]))) do
    move(e[1])
  end
else
  for i = 3, #ARGV do
    local did = redis.call('HGET', dlqidx, ARGV[i])
    if did then move(did) end
  end
end
if #moved > 0 then
  redis.call('HINCRBY', stats, 'redriven', #moved)
  redis.call('PEXPIRE', q, ARGV[1])
  redis.call('PEXPIRE', stats, ARGV[1])
end
return moved
"""
)

# KEYS: stream, stats, cursor. ARGV: group, ttl_ms.
_PURGE = """
local n = redis.call('XLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '$', 'MKSTREAM')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HINCRBY', KEYS[2], 'purged', n)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return n
"""

# KEYS: dlq, dlq index, stats. ARGV: ttl_ms.
_PURGE_DLQ = """
local n = redis.call('XLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HINCRBY', KEYS[3], 'dlq_purged', n)
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return n
"""


@dataclass(frozen=True)
class Message:
    """One delivery of a message: its id, its body and how many times it has been received."""

    msg_id: str
    body: str
    receives: int
    entry_id: str  # the stream entry: SQS's receipt handle
    received_ms: int  # Redis server time of this delivery

    @property
    def sent_ms(self) -> int:
        """When the message entered the queue (Redis time, from the stream entry id)."""
        return int(self.entry_id.split("-", 1)[0])


@dataclass(frozen=True)
class DeadLetter:
    """A message parked in the dead-letter queue, with what an operator needs to judge it."""

    msg_id: str
    body: str
    receives: int
    last_error: str
    sent_ms: int
    dead_ms: int


@dataclass(frozen=True)
class QueueStats:
    """One reading of the queue, in the names CloudWatch uses for SQS where there is one."""

    now_ms: int
    visible: int  # ApproximateNumberOfMessagesVisible: waiting, or back after the timeout
    in_flight: int  # ApproximateNumberOfMessagesNotVisible: received, not done yet
    oldest_age_s: float | None  # ApproximateAgeOfOldestMessage; None when the queue is empty
    dlq_depth: int
    sent: int
    receives: int
    # Receives of a message that had been received before and not reported failed: its
    # worker may have done the work (it died, or was too slow). A retry after a reported
    # failure (a fail-fast while a breaker is open, say) is counted in `retried` instead.
    duplicates_delivered: int
    done: int  # distinct messages acknowledged
    dead: int
    expired: int  # distinct messages deleted by retention, done or not
    failures: int
    redriven: int
    purged: int
    retried: int = 0  # receives of a message whose worker reported it failed

    @property
    def settled(self) -> int:
        """Messages that reached an end: done, parked in the DLQ, or expired."""
        return self.done + self.dead + self.expired

    @property
    def backlog(self) -> int:
        """Messages in the queue and not done: waiting plus in flight."""
        return self.visible + self.in_flight


class RedisQueue:
    """A queue with SQS's rules (visibility timeout, receive count, DLQ, retention) on Redis.

    One instance is cheap; give every worker thread its own with `with_client`, so each has
    its own connection.
    """

    def __init__(
        self,
        r: redis.Redis,
        namespace: Namespace,
        *,
        visibility_timeout_s: float = SQS_DEFAULT_VISIBILITY_S,
        max_receives: int = 5,
        retention_s: float = SQS_DEFAULT_RETENTION_S,
        create: bool = True,
    ) -> None:
        # SQS allows 0 s to 12 h; below 10 ms the timeout would be smaller than Redis's clock step.
        self.visibility_timeout_s = check_float(
            "visibility_timeout_s", visibility_timeout_s, 0.01, 12 * 3600.0
        )
        self.max_receives = check_int("max_receives", max_receives, 1, 1000)
        # SQS's floor is 1 minute; a lab needs expiry in seconds, so ours goes down to 50 ms.
        self.retention_s = check_float("retention_s", retention_s, 0.05, SQS_MAX_RETENTION_S)
        self.r = r
        self.ns = namespace
        self.stream = namespace.key("q")
        self.stats_key = namespace.key("stats")
        self.dlq = namespace.key("dlq")
        self.dlq_index = namespace.key("dlq", "index")
        self.errors = namespace.key("errors")
        self.done_set = namespace.key("done")
        self.expired_set = namespace.key("expired")
        self.cursor = namespace.key("cursor")
        self._scripts()
        if create:
            self._create_group()

    def _scripts(self) -> None:
        self._send = self.r.register_script(_SEND)
        self._receive = self.r.register_script(_RECEIVE)
        self._ack = self.r.register_script(_ACK)
        self._fail = self.r.register_script(_FAIL)
        self._stats = self.r.register_script(_STATS)
        self._redrive = self.r.register_script(_REDRIVE)
        self._purge = self.r.register_script(_PURGE)
        self._purge_dlq = self.r.register_script(_PURGE_DLQ)

    def _create_group(self) -> None:
        try:
            self.r.xgroup_create(self.stream, GROUP, id="$", mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        self.r.pexpire(self.stream, self.ns.ttl_ms)

    def with_client(self, r: redis.Redis) -> RedisQueue:
        """The same queue seen through another connection (one per worker thread)."""
        twin = object.__new__(RedisQueue)
        twin.__dict__.update(self.__dict__)
        twin.r = r
        twin._scripts()
        return twin

    @property
    def _visibility_ms(self) -> int:
        return max(1, round(self.visibility_timeout_s * 1000))

    @property
    def _retention_ms(self) -> int:
        return max(1, round(self.retention_s * 1000))

    # -- producing ---------------------------------------------------------------------------

    def send(self, msg_id: str, body: str = "") -> None:
        """Put one message on the queue. Ids are the caller's and should be unique in a run."""
        self.send_many([(msg_id, body)])

    def send_many(self, messages: Iterable[tuple[str, str]]) -> int:
        """Put many `(msg_id, body)` messages on the queue, a few hundred per round trip."""
        batch: list[str] = []
        sent = 0
        for msg_id, body in messages:
            if not msg_id:
                raise ValueError("msg_id must be a non-empty string")
            batch += [msg_id, body]
            if len(batch) >= 2 * SEND_CHUNK:
                sent += self._send(
                    keys=[self.stream, self.stats_key], args=[self.ns.ttl_ms, *batch]
                )
                batch = []
        if batch:
            sent += self._send(keys=[self.stream, self.stats_key], args=[self.ns.ttl_ms, *batch])
        return sent

    # -- consuming ---------------------------------------------------------------------------

    def receive(self, consumer: str, max_messages: int = 1) -> list[Message]:
        """Take up to `max_messages`: first ones whose visibility timeout ran out, then new ones.

        Each message returned is hidden from other consumers for the visibility timeout and
        its receive count has gone up by one. Never blocks: an empty list means nothing to do.
        """
        check_int("max_messages", max_messages, 1, 1000)
        now, rows = self._receive(
            keys=[
                self.stream,
                self.stats_key,
                self.dlq,
                self.dlq_index,
                self.errors,
                self.expired_set,
                self.cursor,
            ],
            args=[
                GROUP,
                consumer,
                max_messages,
                self._visibility_ms,
                self.max_receives,
                self._retention_ms,
                self.ns.ttl_ms,
            ],
        )
        return [
            Message(m.decode(), b.decode(), int(n), eid.decode(), int(now)) for eid, m, b, n in rows
        ]

    def ack(self, message: Message) -> bool:
        """Delete a message because its work is done; False if it was no longer ours to delete.

        A late acknowledgement after the message expired, was dead-lettered or purged
        changes nothing, so every message ends in exactly one place.
        """
        return self.ack_many([message]) == 1

    def ack_many(self, messages: Sequence[Message]) -> int:
        """Acknowledge a batch in one round trip per 1000; returns how many were still ours."""
        acked = 0
        for start in range(0, len(messages), ACK_CHUNK):  # Lua's unpack() takes ~8000 values
            args: list[str | int] = [GROUP, self.ns.ttl_ms]
            for m in messages[start : start + ACK_CHUNK]:
                args += [m.entry_id, m.msg_id]
            acked += int(self._ack(keys=[self.stream, self.stats_key, self.done_set], args=args))
        return acked

    def fail(self, message: Message, error: str, *, retry_after_s: float | None = None) -> bool:
        """Record why a message failed. It comes back when its visibility timeout runs out.

        `retry_after_s` is SQS's ChangeMessageVisibility: make it visible again sooner (0 = now).
        """
        idle_ms = -1
        if retry_after_s is not None:
            retry_after_s = check_float(
                "retry_after_s", retry_after_s, 0.0, self.visibility_timeout_s
            )
            idle_ms = self._visibility_ms - round(retry_after_s * 1000)
        return bool(
            self._fail(
                keys=[self.stream, self.stats_key, self.errors],
                args=[
                    GROUP,
                    self.ns.ttl_ms,
                    message.entry_id,
                    message.msg_id,
                    error[:500],
                    idle_ms,
                ],
            )
        )

    # -- watching ----------------------------------------------------------------------------

    def stats(self) -> QueueStats:
        """Read the queue's depth, in-flight count, oldest age and counters in one round trip.

        Reading also applies retention, so an idle queue still expires its old messages.
        """
        now, length, pending, overdue, oldest, dlq_depth, done, expired, raw = self._stats(
            keys=[
                self.stream,
                self.stats_key,
                self.dlq,
                self.done_set,
                self.expired_set,
            ],
            args=[GROUP, self._visibility_ms, self._retention_ms, self.ns.ttl_ms],
        )
        counters = {raw[i].decode(): int(raw[i + 1]) for i in range(0, len(raw), 2)}
        return QueueStats(
            now_ms=int(now),
            visible=int(length) - int(pending) + int(overdue),
            in_flight=int(pending) - int(overdue),
            oldest_age_s=None if int(oldest) < 0 else int(oldest) / 1000,
            dlq_depth=int(dlq_depth),
            sent=counters.get("sent", 0),
            receives=counters.get("receives", 0),
            duplicates_delivered=counters.get("redelivered", 0),
            done=int(done),
            dead=counters.get("dead", 0),
            expired=int(expired),
            failures=counters.get("failures", 0),
            redriven=counters.get("redriven", 0),
            purged=counters.get("purged", 0),
            retried=counters.get("retried", 0),
        )

    def done_ids(self) -> set[str]:
        """The ids of every message acknowledged in this run."""
        return {m.decode() for m in self.r.smembers(self.done_set)}

    def expired_ids(self) -> set[str]:
        """The ids of every message retention deleted in this run."""
        return {m.decode() for m in self.r.smembers(self.expired_set)}

    def queued_ids(self) -> list[str]:
        """The ids still in the queue (waiting or in flight), oldest first."""
        return [f[b"m"].decode() for _, f in self.r.xrange(self.stream)]

    # -- the dead-letter queue -----------------------------------------------------------------

    def dlq_depth(self) -> int:
        """How many messages are parked."""
        return int(self.r.xlen(self.dlq))

    def dead_letters(self, limit: int = 100) -> list[DeadLetter]:
        """The oldest `limit` parked messages, with their receive count and last error."""
        check_int("limit", limit, 1, 10_000)
        return [
            DeadLetter(
                msg_id=f[b"m"].decode(),
                body=f[b"b"].decode(),
                receives=int(f[b"r"]),
                last_error=f[b"e"].decode(),
                sent_ms=int(f[b"s"]),
                dead_ms=int(eid.decode().split("-", 1)[0]),
            )
            for eid, f in self.r.xrange(self.dlq, count=limit)
        ]

    def redrive(self, msg_id: str) -> bool:
        """Move one parked message back to the queue, as new (receive count starts again)."""
        return len(self._redrive_raw(["ids", msg_id])) == 1

    def redrive_oldest(self, count: int) -> list[tuple[str, str]]:
        """Move up to `count` of the oldest parked messages back; returns (msg_id, entry_id)."""
        check_int("count", count, 1, 10_000)
        return self._redrive_raw(["first", count])

    def _redrive_raw(self, args: list[str | int]) -> list[tuple[str, str]]:
        moved = self._redrive(
            keys=[self.stream, self.stats_key, self.dlq, self.dlq_index, self.errors],
            args=[self.ns.ttl_ms, *args],
        )
        return [(m.decode(), eid.decode()) for m, eid in moved]

    def purge(self) -> int:
        """Delete every message in the queue, waiting or in flight (SQS PurgeQueue)."""
        return int(
            self._purge(
                keys=[self.stream, self.stats_key, self.cursor], args=[GROUP, self.ns.ttl_ms]
            )
        )

    def purge_dlq(self) -> int:
        """Delete every parked message."""
        return int(
            self._purge_dlq(keys=[self.dlq, self.dlq_index, self.stats_key], args=[self.ns.ttl_ms])
        )
