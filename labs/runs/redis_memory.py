"""Whether a Redis refuses writes for want of memory, so that a full Redis is said as full.

At `maxmemory` Redis evicts what its policy allows (under `./dev`'s `volatile-ttl`, keys
with a TTL, the nearest their end first) and refuses a write only once nothing of that is
left: another program filling it with keys that never expire, or a huge backlog (queued
messages have no TTL). Then the workers stop too: kombu acknowledges a task in a MULTI
that Redis refuses whole, the worker exits ("Unrecoverable error: OutOfMemoryError"), and
no beat can be written. Admission then saw no worker alive and told students that the lab
runners needed starting, and `/healthz/deep` said "workers" (the fault bench's finding 5):
true, but the cause was a full Redis, which no teacher can start.

Such a Redis is full in effect before every write fails: it takes a small write while its
memory is a little under `maxmemory`, and refuses the next that would go over, so the
site's writes fail now and then (the fault bench counted 126 refused in 20 s) while a
one-byte probe may pass. So the probe is a write of `PROBE_BYTES` (a large cached page's
size) with a TTL: refused, Redis can neither fit nor make room for one (`volatile-ttl`
would evict keys with a TTL for it). One INFO first: with that much room under
`maxmemory`, no write is made.
"""

from __future__ import annotations

import redis

PROBE_BYTES = 256 * 1024
PROBE_TTL_S = 10


def refusal(client: redis.Redis, probe_key: str) -> str | None:
    """Redis's own words when it refuses a write of `PROBE_BYTES` as over its `maxmemory`,
    else None (None too when it does not answer: that failure is said elsewhere)."""
    try:
        memory = client.info("memory")
        limit = int(memory.get("maxmemory", 0))
        if not limit or limit - int(memory.get("used_memory", 0)) > 2 * PROBE_BYTES:
            return None
        client.set(probe_key, b"\0" * PROBE_BYTES, ex=PROBE_TTL_S)
        client.delete(probe_key)  # it made its point: the room is the site's again
    except redis.OutOfMemoryError as exc:
        return str(exc) or "OOM"
    except redis.RedisError:
        return None
    return None
