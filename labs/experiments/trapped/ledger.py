"""The payments ledger on Redis: every payment is an obligation kept by its operation id.

The same states and moves as the model's ledger (`labs.sim.capstone.obligations`), written
as Lua functions so that the service's scripts change a payment in the same step as the
message it belongs to: a worker's answer and the payment's "confirmed", a discard and its
"lost", can never be seen half done by the operator view or by another worker.

Keys (all under the run's namespace): `pay:state` (operation id -> state), `pay:live` (its
messages still queued or in service), `pay:charged` and `pay:dropped` (sets), `pay:unknown`
(the ones nobody owns), `pay:due` (reconciliation due times), `pay:created` and
`pay:since` (Redis ms), and `pay:counts` (payments per state, charges, duplicates).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from labs.experiments.namespace import Namespace
from labs.sim.capstone.obligations import OWNER, STATES

LEDGER_KEYS = (
    "state",
    "live",
    "charged",
    "dropped",
    "unknown",
    "due",
    "created",
    "since",
    "counts",
)
TABLE_ROWS = 20  # rows kept per section of the operator view, as in the model

# The ledger's Lua: expects `L` (a table of the keys above by name) and `now` (Redis ms).
LEDGER_LUA = """
local function pay_move(op, to)
  local from = redis.call('HGET', L.state, op)
  redis.call('HINCRBY', L.counts, from, -1)
  redis.call('HINCRBY', L.counts, to, 1)
  redis.call('HSET', L.state, op, to)
  redis.call('HSET', L.since, op, now)
  if to == 'unknown' then redis.call('SADD', L.unknown, op)
  elseif from == 'unknown' then redis.call('SREM', L.unknown, op) end
end
local function pay_charge(op)
  if redis.call('SADD', L.charged, op) == 1 then
    redis.call('HINCRBY', L.counts, '_charges', 1)
  else
    redis.call('HINCRBY', L.counts, '_duplicates', 1)
  end
end
local function pay_to_reconciliation(op, delay_ms)
  pay_move(op, 'reconciling')
  redis.call('ZADD', L.due, now + delay_ms, op)
end
local function pay_new(op)
  redis.call('HSET', L.state, op, 'pending')
  redis.call('HSET', L.created, op, now)
  redis.call('HSET', L.since, op, now)
  redis.call('HINCRBY', L.counts, 'pending', 1)
  redis.call('HINCRBY', L.counts, '_total', 1)
end
local function pay_live(op)
  return tonumber(redis.call('HGET', L.live, op) or '0')
end
-- A worker processed a message of this payment: the provider charges once per id.
local function pay_served(op, caller_waiting)
  redis.call('HINCRBY', L.live, op, -1)
  local state = redis.call('HGET', L.state, op)
  if state == 'reconciled' or state == 'failed' or state == 'lost' then
    redis.call('HINCRBY', L.counts, '_duplicates', 1)
    return
  end
  pay_charge(op)
  if state == 'pending' and caller_waiting then
    pay_move(op, 'confirmed')
  elseif state == 'reconciling' then
    redis.call('ZREM', L.due, op)
    pay_move(op, 'reconciled')
  end
end
-- A worker threw away a message of this payment whose caller had already gone.
local function pay_discarded(op, reconcile, delay_ms)
  local live = redis.call('HINCRBY', L.live, op, -1)
  redis.call('SADD', L.dropped, op)
  if redis.call('HGET', L.state, op) == 'unknown' then
    if reconcile then
      pay_to_reconciliation(op, delay_ms)
    elseif live <= 0 and redis.call('SISMEMBER', L.charged, op) == 0 then
      pay_move(op, 'lost')
    end
  end
end
-- The caller ran out of attempts (or of retry budget) without an answer.
local function pay_gave_up(op, reconcile, delay_ms)
  if redis.call('HGET', L.state, op) ~= 'pending' then return end
  if reconcile then
    pay_to_reconciliation(op, delay_ms)
  elseif pay_live(op) <= 0 and redis.call('SISMEMBER', L.charged, op) == 0 then
    if redis.call('SISMEMBER', L.dropped, op) == 1 then
      pay_move(op, 'lost')
    else
      pay_move(op, 'failed')
    end
  else
    pay_move(op, 'unknown')
  end
end
"""


def ledger_prelude(first_key: int) -> str:
    """Lua that binds `L` to the ledger keys, passed from KEYS[first_key] on, and `now`."""
    names = ", ".join(f"'{k}'" for k in LEDGER_KEYS)
    return (
        "local L = {}\n"
        f"for i, name in ipairs({{{names}}}) do L[name] = KEYS[{first_key} + i - 1] end\n"
        "local t = redis.call('TIME')\n"
        "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n" + LEDGER_LUA
    )


def touch_lua(ttl_arg: str) -> str:
    """Lua that refreshes the TTL of every key the script was given."""
    return f"for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, {ttl_arg}) end\n"


# KEYS: ledger keys. ARGV: ttl_ms, delay_ms.
_RECONCILE_ALL = (
    ledger_prelude(1)
    + """
for _, op in ipairs(redis.call('SMEMBERS', L.unknown)) do
  pay_to_reconciliation(op, tonumber(ARGV[2]))
end
"""
    + touch_lua("ARGV[1]")
    + "return now\n"
)

# KEYS: ledger keys. ARGV: ttl_ms. The owner hears the provider's answer for what is due.
_SETTLE = (
    ledger_prelude(1)
    + """
local n = 0
for _, op in ipairs(redis.call('ZRANGEBYSCORE', L.due, '-inf', now)) do
  redis.call('ZREM', L.due, op)
  if redis.call('HGET', L.state, op) == 'reconciling' then
    -- Resubmitted with the same operation id: the provider charges it at most once.
    pay_charge(op)
    pay_move(op, 'reconciled')
    n = n + 1
  end
end
"""
    + touch_lua("ARGV[1]")
    + "return n\n"
)


@dataclass(frozen=True)
class LedgerCounts:
    """Payments by state, with the provider's charges, as the model's summary wants them."""

    counts: dict[str, int]
    total: int
    charges: int
    duplicates_absorbed: int


class RedisLedger:
    """The run's payments on Redis: keys, the reconciliation scripts and the readings."""

    def __init__(self, r: redis.Redis, namespace: Namespace) -> None:
        self.r = r
        self.ns = namespace
        self.keys = [namespace.key("pay", name) for name in LEDGER_KEYS]
        self._reconcile_all = r.register_script(_RECONCILE_ALL)
        self._settle = r.register_script(_SETTLE)

    def with_client(self, r: redis.Redis) -> RedisLedger:
        """The same ledger through another connection (one per thread)."""
        return RedisLedger(r, self.ns)

    def reconcile_all(self, delay_ms: int) -> int:
        """Hand every payment nobody owns to the reconciliation owner; returns Redis ms."""
        return int(self._reconcile_all(keys=self.keys, args=[self.ns.ttl_ms, delay_ms]))

    def settle_due(self) -> int:
        """Settle the reconciliations whose provider answer is due; returns how many."""
        return int(self._settle(keys=self.keys, args=[self.ns.ttl_ms]))

    def counts(self) -> LedgerCounts:
        """Payments per state now (every state present, zero if none)."""
        raw = {k.decode(): int(v) for k, v in self.r.hgetall(self.keys[-1]).items()}
        return LedgerCounts(
            counts={s: raw.get(s, 0) for s in STATES},
            total=raw.get("_total", 0),
            charges=raw.get("_charges", 0),
            duplicates_absorbed=raw.get("_duplicates", 0),
        )

    def table(self, now_ms: int, ms_per_model_s: float) -> list[dict[str, Any]]:
        """The operator view: oldest unresolved payments, then the latest unknown, reconciled, lost.

        The same rows as the model's `Ledger.table`, ages in model seconds.
        """
        state_key, created_key, since_key = self.keys[0], self.keys[6], self.keys[7]
        states = {k.decode(): v.decode() for k, v in self.r.hgetall(state_key).items()}
        created = {k.decode(): int(v) for k, v in self.r.hgetall(created_key).items()}
        since = {k.decode(): int(v) for k, v in self.r.hgetall(since_key).items()}

        def row(op: str, owner: str, until_ms: int) -> dict[str, Any]:
            return {
                "operation_id": op,
                "state": states[op],
                "owner": owner or "nobody",
                "age_s": round((until_ms - created[op]) / ms_per_model_s, 3),
            }

        oldest = sorted(
            (op for op, s in states.items() if s in ("pending", "unknown", "reconciling")),
            key=lambda op: (created[op], op),
        )
        owners = {"reconciling": OWNER, "pending": "caller"}
        rows = [row(op, owners.get(states[op], ""), now_ms) for op in oldest[:TABLE_ROWS]]
        shown = {r["operation_id"] for r in rows}
        for state, owner in (("unknown", ""), ("reconciled", OWNER), ("lost", "")):
            latest = sorted(
                (op for op, s in states.items() if s == state and op not in shown),
                key=lambda op: (since[op], op),
            )[-TABLE_ROWS:]
            rows += [row(op, owner, since[op]) for op in latest]
        return rows
