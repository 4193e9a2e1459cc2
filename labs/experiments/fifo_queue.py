"""A FIFO queue with SQS's rules for message groups, on Redis.

Why its own queue: a standard queue (`queue.py`) hands any visible message to any worker,
so two messages of the same student can be worked on at once and finish in either order.
A FIFO queue keeps one list per message group and hands out a group's next message only
when the one before it is done, so order holds within a group while different groups still
run in parallel. Its other two rules:

- a send whose deduplication id was already sent within the deduplication window is
  accepted and dropped (SQS: 5 minutes), so a producer may resend safely;
- a message that fails comes back after its visibility timeout and still blocks its group;
  once it has been received `max_receives` times, the next receive moves it to the DLQ and
  the group goes on. That is the cost of a poison message on a FIFO queue: its own group
  waits about max_receives × visibility timeout; the other groups do not wait at all.

Each step is one Lua script, timed by the Redis server's clock. The scripts name a group's
list from the run's prefix (every key shares the run's hash tag, so one slot holds them).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from labs.experiments.limits import check_float, check_int
from labs.experiments.namespace import Namespace
from labs.experiments.queue import LUA_NOW_MS

SQS_DEDUP_WINDOW_S = 300.0

_NOW = (
    LUA_NOW_MS
    + """local function touch(keys, ttl)
  for _, k in ipairs(keys) do redis.call('PEXPIRE', k, ttl) end
end
"""
)

# KEYS: dedup key, seq, heads, bodies, stats. ARGV: prefix, group, body, window_ms, ttl_ms.
_SEND = (
    _NOW
    + """
local ttl = ARGV[5]
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[4]) then
  redis.call('HINCRBY', KEYS[5], 'deduplicated', 1)
  touch({KEYS[5]}, ttl)
  return 0
end
local seq = redis.call('INCR', KEYS[2])
local list = ARGV[1] .. 'g:' .. ARGV[2]
redis.call('RPUSH', list, seq)
redis.call('HSET', KEYS[4], seq, ARGV[2] .. '|' .. ARGV[3])
redis.call('ZADD', KEYS[3], 'NX', seq, ARGV[2])
redis.call('HINCRBY', KEYS[5], 'sent', 1)
redis.call('HINCRBY', KEYS[5], 'queued', 1)
touch({KEYS[2], KEYS[3], KEYS[4], KEYS[5], list}, ttl)
return seq
"""
)

# KEYS: heads, inflight, receives, dlq, stats. ARGV: prefix, visibility_ms, max_receives, ttl.
# Returns {seq, body, receive count, server ms} or {} when every group is empty or blocked.
_RECEIVE = (
    _NOW
    + """
local prefix, vis, maxr, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local heads, inflight, recv, dlq, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now = now_ms()
for _, g in ipairs(redis.call('ZRANGE', heads, 0, -1)) do
  local list = prefix .. 'g:' .. g
  local lock = redis.call('HGET', inflight, g)
  local pick = nil
  if not lock then
    pick = redis.call('LINDEX', list, 0)
  else
    local s, until_ms = string.match(lock, '^(%d+):(%d+)$')
    if now >= tonumber(until_ms) then
      if tonumber(redis.call('HGET', recv, s) or '0') >= maxr then
        -- Received max_receives times and never deleted: park it, free its group.
        redis.call('LPOP', list)
        redis.call('HDEL', inflight, g)
        redis.call('RPUSH', dlq, s .. ':' .. now)
        redis.call('HINCRBY', stats, 'dead', 1)
        redis.call('HINCRBY', stats, 'queued', -1)
        pick = redis.call('LINDEX', list, 0)
        if pick then redis.call('ZADD', heads, pick, g) else redis.call('ZREM', heads, g) end
      else
        pick = s
      end
    end
  end
  if pick then
    local n = redis.call('HINCRBY', recv, pick, 1)
    redis.call('HSET', inflight, g, pick .. ':' .. (now + vis))
    redis.call('HINCRBY', stats, 'receives', 1)
    touch({heads, inflight, recv, dlq, stats}, ttl)
    return {tonumber(pick), n, now}
  end
end
return {}
"""
)

# KEYS: heads, inflight, stats. ARGV: prefix, group, seq, ttl. 1 if it was still ours.
_ACK = """
local heads, inflight, stats = KEYS[1], KEYS[2], KEYS[3]
local g, seq = ARGV[2], ARGV[3]
local lock = redis.call('HGET', inflight, g)
if not lock or string.match(lock, '^(%d+):') ~= seq then return 0 end
local list = ARGV[1] .. 'g:' .. g
redis.call('LPOP', list)
redis.call('HDEL', inflight, g)
local nxt = redis.call('LINDEX', list, 0)
if nxt then redis.call('ZADD', heads, nxt, g) else redis.call('ZREM', heads, g) end
redis.call('HINCRBY', stats, 'done', 1)
redis.call('HINCRBY', stats, 'queued', -1)
return 1
"""


@dataclass(frozen=True)
class FifoMessage:
    """One delivery: the message's place in the queue, its group and body, its receive count."""

    seq: int
    group: str
    body: str
    receives: int
    received_ms: int


@dataclass(frozen=True)
class DeadFifoLetter:
    seq: int
    group: str
    body: str
    dead_ms: int  # Redis server time it was parked


@dataclass(frozen=True)
class FifoStats:
    sent: int
    deduplicated: int  # sends dropped: the same deduplication id within the window
    queued: int  # waiting or in flight
    in_flight: int  # groups whose head is out with a worker (blocked for other workers)
    receives: int
    done: int
    dead: int


class FifoQueue:
    """Message groups, deduplication and a redrive policy, as an SQS FIFO queue has them."""

    def __init__(
        self,
        r: redis.Redis,
        namespace: Namespace,
        *,
        visibility_timeout_s: float = 30.0,
        max_receives: int = 5,
        dedup_window_s: float = SQS_DEDUP_WINDOW_S,
    ) -> None:
        self.visibility_timeout_s = check_float(
            "visibility_timeout_s", visibility_timeout_s, 0.01, 12 * 3600.0
        )
        self.max_receives = check_int("max_receives", max_receives, 1, 1000)
        self.dedup_window_s = check_float("dedup_window_s", dedup_window_s, 0.01, 3600.0)
        self.r = r
        self.ns = namespace
        self.heads = namespace.key("heads")
        self.inflight = namespace.key("inflight")
        self.recv = namespace.key("receives")
        self.dlq = namespace.key("dlq")
        self.stats_key = namespace.key("stats")
        self.bodies = namespace.key("bodies")
        self.seq = namespace.key("seq")
        self._scripts()

    def _scripts(self) -> None:
        self._send = self.r.register_script(_SEND)
        self._receive = self.r.register_script(_RECEIVE)
        self._ack = self.r.register_script(_ACK)

    def with_client(self, r: redis.Redis) -> FifoQueue:
        """The same queue through another connection (one per worker thread)."""
        twin = object.__new__(FifoQueue)
        twin.__dict__.update(self.__dict__)
        twin.r = r
        twin._scripts()
        return twin

    def send(self, group: str, dedup_id: str, body: str = "") -> int | None:
        """Append to `group`; the new message's place, or None if `dedup_id` was a duplicate."""
        if not group or "|" in group or not dedup_id:
            raise ValueError("group and dedup_id must be non-empty; group without '|'")
        seq = self._send(
            keys=[
                self.ns.key("dedup", dedup_id),
                self.seq,
                self.heads,
                self.bodies,
                self.stats_key,
            ],
            args=[
                self.ns.prefix,
                group,
                body,
                max(1, round(self.dedup_window_s * 1000)),
                self.ns.ttl_ms,
            ],
        )
        return int(seq) or None

    def receive(self) -> FifoMessage | None:
        """The head of the first group (oldest head first) that is not out with a worker."""
        row = self._receive(
            keys=[self.heads, self.inflight, self.recv, self.dlq, self.stats_key],
            args=[
                self.ns.prefix,
                max(1, round(self.visibility_timeout_s * 1000)),
                self.max_receives,
                self.ns.ttl_ms,
            ],
        )
        if not row:
            return None
        seq, receives, now = (int(v) for v in row)
        group, body = self.r.hget(self.bodies, seq).decode().split("|", 1)
        return FifoMessage(seq, group, body, receives, now)

    def ack(self, message: FifoMessage) -> bool:
        """Delete a message that was done; False if its visibility timeout had already run out
        and it was handed out again or parked (the work was then done twice)."""
        return bool(
            self._ack(
                keys=[self.heads, self.inflight, self.stats_key],
                args=[self.ns.prefix, message.group, message.seq, self.ns.ttl_ms],
            )
        )

    def dead_letters(self) -> list[DeadFifoLetter]:
        """The parked messages, oldest first, with the server time each was parked."""
        letters = []
        for raw in self.r.lrange(self.dlq, 0, -1):
            seq, dead_ms = raw.decode().split(":")
            group, body = self.r.hget(self.bodies, seq).decode().split("|", 1)
            letters.append(DeadFifoLetter(int(seq), group, body, int(dead_ms)))
        return letters

    def stats(self) -> FifoStats:
        raw = {k.decode(): int(v) for k, v in self.r.hgetall(self.stats_key).items()}
        return FifoStats(
            sent=raw.get("sent", 0),
            deduplicated=raw.get("deduplicated", 0),
            queued=raw.get("queued", 0),
            in_flight=int(self.r.hlen(self.inflight)),
            receives=raw.get("receives", 0),
            done=raw.get("done", 0),
            dead=raw.get("dead", 0),
        )
