"""Whether a Redis refuses writes for want of memory, so that a full Redis is said as full.

At `maxmemory` Redis evicts what its policy allows (under `./dev`'s `volatile-ttl`, keys
with a TTL, the nearest their end first) and refuses a write only once nothing of that is
left: another program filling it with keys that never expire, or a huge backlog (queued
messages have no TTL). Then the workers stop too: kombu acknowledges a task in a MULTI
that Redis refuses whole, the worker exits ("Unrecoverable error: OutOfMemoryError"), and
no beat can be written. Admission then saw no worker alive and told students that the lab
runners needed starting, and `/healthz/deep` said "workers" (the fault bench's finding 5):
true, but the cause was a full Redis, which no teacher can start.

One INFO says "not full" while used memory is under `maxmemory`; at it, a small write with
a TTL decides, since `volatile-ttl` may still make room for it.
"""

from __future__ import annotations

import redis

PROBE_TTL_S = 10


def refusal(client: redis.Redis, probe_key: str) -> str | None:
    """Redis's own words when it refuses a write as over its `maxmemory`, else None (None
    too when it does not answer: that failure is said elsewhere)."""
    try:
        memory = client.info("memory")
        limit = int(memory.get("maxmemory", 0))
        if not limit or int(memory.get("used_memory", 0)) < limit:
            return None
        client.set(probe_key, b"1", ex=PROBE_TTL_S)
    except redis.OutOfMemoryError as exc:
        return str(exc) or "OOM"
    except redis.RedisError:
        return None
    return None
