"""Whether a Redis refuses writes for want of memory, so that a full Redis is said as full.

At `maxmemory` Redis evicts what its policy allows (under `./dev`'s `volatile-ttl`, keys
with a TTL, the nearest their end first) and refuses a write only once nothing of that is
left: another program filling it with keys that never expire, or a huge backlog (queued
messages have no TTL). Then the workers cannot work either: Redis refuses their
acknowledgements (a MULTI, refused whole) and their beats; they wait for room
(`labs.runs.worker_consumer`; they used to exit, "Unrecoverable error: OutOfMemoryError").
Admission then saw no worker alive and told students that the lab runners needed
starting, and `/healthz/deep` said "workers" (the fault bench's finding 5): true, but the
cause was a full Redis, which no teacher can start.

Such a Redis is full in effect before every write fails: it hovers at its limit, taking
one write and refusing the next (the fault bench counted 126 to 378 of the site's writes
refused in 20 s), so a probe write at one instant may pass. It is judged, at 95 % of
`maxmemory` or more (`SHORT_OF_MEMORY_AT`, the metric's "short of memory"), by what Redis
itself reports:

- its count of writes refused as over `maxmemory` (`INFO errorstats`, `errorstat_OOM`)
  rose within the last `REFUSED_WITHIN_S`, as this process saw it (the first look only
  notes the count: a rise since the server started may be long over);
- or, within `2 * PROBE_BYTES` of the limit, it refuses a write of `PROBE_BYTES` (a large
  cached page's size) with a TTL, for which `volatile-ttl` would evict if it could.
"""

from __future__ import annotations

import time

import redis

# Used memory at this share of maxmemory or more: "short of memory" (Redis evicts, or refuses
# writes, from here on); `/metrics` says it too (`qlab_redis_short_of_memory`).
SHORT_OF_MEMORY_AT = 0.95
PROBE_BYTES = 256 * 1024
PROBE_TTL_S = 10
REFUSED_WITHIN_S = 60.0

# Per Redis server: its count of writes refused as full when last read, and when (this
# process's clock) that count was last seen to rise.
_seen: dict[str, tuple[int, float | None]] = {}


def refusal(client: redis.Redis, probe_key: str, now: float | None = None) -> str | None:
    """Why `client`'s Redis is full (it refuses writes), in Redis's words, or None (None
    too when it does not answer: that failure is said elsewhere)."""
    now = time.monotonic() if now is None else now
    try:
        pipe = client.pipeline(transaction=False)
        pipe.info("memory")
        pipe.info("errorstats")
        memory, errors = pipe.execute()
        refused = int(errors.get("errorstat_OOM", {}).get("count", 0))
        lately = refused_lately(server_of(client), refused, now)
        limit, used = int(memory.get("maxmemory", 0)), int(memory.get("used_memory", 0))
        if not limit or used < SHORT_OF_MEMORY_AT * limit:
            return None
        if lately:
            return (
                f"{refused} writes refused as over maxmemory since it started, the last "
                f"within {REFUSED_WITHIN_S:.0f} s"
            )
        if limit - used > 2 * PROBE_BYTES:
            return None
        client.set(probe_key, b"\0" * PROBE_BYTES, ex=PROBE_TTL_S)
        client.delete(probe_key)  # it made its point: the room is the site's again
    except redis.OutOfMemoryError as exc:
        return str(exc) or "OOM"
    except redis.RedisError:
        return None
    return None


def refused_lately(server: str, refused: int, now: float) -> bool:
    """Whether `server`'s count of writes refused as full, now `refused`, rose within
    `REFUSED_WITHIN_S` of `now`, as seen by this process."""
    last = _seen.get(server)
    rose_at = None
    if last is not None:
        seen, rose_at = last
        if refused > seen:
            rose_at = now
        elif refused < seen:
            rose_at = None  # a restarted server counts from 0 again
    _seen[server] = (refused, rose_at)
    return rose_at is not None and now - rose_at <= REFUSED_WITHIN_S


def server_of(client: redis.Redis) -> str:
    """The server `client` talks to (the count is the server's, whatever the database)."""
    kwargs = client.connection_pool.connection_kwargs
    return str(kwargs.get("path") or f"{kwargs.get('host')}:{kwargs.get('port')}")
