"""The side effect a consumer exists for (an SMS sent, a fee charged), counted per message id.

At-least-once delivery means a message can be handled twice. An idempotent consumer makes the
second time a no-op: before the effect it claims the message id with SET NX (with a TTL) in
Redis, and the claim and the effect are one Lua script, so no crash can fall between them.
A plain consumer just does the effect again, and the duplicate shows in the counts.
"""

from __future__ import annotations

import redis

from labs.experiments.namespace import Namespace

# KEYS: idempotency key, counts hash, effect stats hash.
# ARGV: msg_id, key ttl_ms, idempotent ('1' or '0'), run key ttl_ms.
_APPLY = """
if ARGV[3] == '1' then
  if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
    redis.call('HINCRBY', KEYS[3], 'skipped', 1)
    redis.call('PEXPIRE', KEYS[3], ARGV[4])
    return 0
  end
end
if redis.call('HINCRBY', KEYS[2], ARGV[1], 1) == 1 then
  redis.call('HINCRBY', KEYS[3], 'ids', 1)
end
redis.call('HINCRBY', KEYS[3], 'effects', 1)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1
"""


class Effects:
    """Where one kind of effect lands ("sms_sent"), idempotent by message id or not.

    The idempotency key must outlive any redelivery of the message, so by default it lives
    as long as the run's keys do (far longer than retention plus a visibility timeout in a lab).
    """

    def __init__(
        self,
        r: redis.Redis,
        namespace: Namespace,
        *,
        kind: str = "effect",
        idempotent: bool = True,
        key_ttl_s: float | None = None,
    ) -> None:
        if not kind.isidentifier():
            raise ValueError(f"kind must be a word like 'sms_sent', got {kind!r}")
        self.r = r
        self.ns = namespace
        self.kind = kind
        self.idempotent = idempotent
        self.key_ttl_ms = int((key_ttl_s or namespace.ttl_s) * 1000)
        if self.key_ttl_ms < 1:
            raise ValueError(f"key_ttl_s must be > 0, got {key_ttl_s}")
        self.counts_key = namespace.key("fx", kind, "counts")
        self.stats_key = namespace.key("fx", kind, "stats")
        self._apply = r.register_script(_APPLY)

    def with_client(self, r: redis.Redis) -> Effects:
        """The same effects seen through another connection."""
        return Effects(
            r, self.ns, kind=self.kind, idempotent=self.idempotent, key_ttl_s=self.key_ttl_ms / 1000
        )

    def idempotency_key(self, msg_id: str) -> str:
        """The SET NX key that marks `msg_id`'s effect as done."""
        return self.ns.key("fx", self.kind, "once", msg_id)

    def apply(self, msg_id: str) -> bool:
        """Do the effect for `msg_id`; False if the idempotent consumer had already done it."""
        return bool(
            self._apply(
                keys=[self.idempotency_key(msg_id), self.counts_key, self.stats_key],
                args=[msg_id, self.key_ttl_ms, "1" if self.idempotent else "0", self.ns.ttl_ms],
            )
        )

    def counts(self) -> dict[str, int]:
        """How many times the effect happened, per message id."""
        return {k.decode(): int(v) for k, v in self.r.hgetall(self.counts_key).items()}

    def totals(self) -> dict[str, int]:
        """Effects done, distinct ids affected, duplicate effects, and repeats skipped.

        Kept as running counters, so a sampler reads them in one small HGETALL.
        """
        raw = {k.decode(): int(v) for k, v in self.r.hgetall(self.stats_key).items()}
        effects, ids = raw.get("effects", 0), raw.get("ids", 0)
        return {
            "effects": effects,
            "ids": ids,
            "duplicate_effects": effects - ids,
            "skipped": raw.get("skipped", 0),
        }
