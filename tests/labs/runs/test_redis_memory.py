"""A Redis that refuses writes as full is told from one at its maxmemory that still evicts,
and from one that does not answer. Real Redis servers of the test's own."""

from __future__ import annotations

import pytest
import redis

from labs.runs.redis_memory import PROBE_BYTES, REFUSED_WITHIN_S, refusal
from tests.redis_helpers import RedisServer, fill_without_ttl

pytestmark = pytest.mark.redis
PROBE = "test:memory-probe"


def small(tmp_path, *more: str) -> RedisServer:
    return RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl", *more
    ).start()


def test_a_redis_full_of_keys_without_a_ttl_refuses_and_says_so(tmp_path):
    server = small(tmp_path)
    try:
        assert refusal(server.client(), PROBE) is None  # not full yet
        fill_without_ttl(server)
        said = refusal(server.client(), PROBE)
        assert said is not None and "maxmemory" in said
    finally:
        server.kill()


def test_a_redis_that_takes_a_small_write_but_not_a_large_one_is_full(tmp_path):
    """Filled with keys without a TTL until a 256 KB one is refused, as the fault bench
    fills it: a small write still fits under maxmemory, yet the site's writes fail as the
    room runs out. Said full (a one-byte probe said otherwise: finding 5 in the bench)."""
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "8mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    try:
        filler = server.client()
        for i in range(1000):
            try:
                filler.set(f"filler:{i}", b"x" * PROBE_BYTES)
            except redis.OutOfMemoryError:
                break
        filler.set("small", b"x")  # still fits
        said = refusal(filler, PROBE)
        assert said is not None and "maxmemory" in said
    finally:
        server.kill()


def test_a_redis_hovering_at_its_limit_that_refused_writes_lately_is_full(tmp_path):
    """As in the fault bench's fill: Redis takes one write and refuses the next, so a probe
    that passes at one instant says nothing. Its own count of writes refused as full,
    seen to rise, does; a minute later, with room for the probe, it is full no more."""
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "32mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    try:
        client = server.client()
        assert refusal(client, PROBE, now=1000.0) is None  # the first look notes the count
        written = 0
        while True:
            try:
                client.set(f"filler:{written}", b"x" * PROBE_BYTES)
                written += 1
            except redis.OutOfMemoryError:  # refused: Redis counts it
                break
        client.delete("filler:0", "filler:1")  # room again for a write or two, for now
        said = refusal(client, PROBE, now=1010.0)
        assert said is not None and "refused as over maxmemory" in said
        assert refusal(client, PROBE, now=1010.0 + REFUSED_WITHIN_S + 1) is None
    finally:
        server.kill()


def test_a_redis_at_its_maxmemory_that_can_still_evict_is_not_full(tmp_path):
    """Under volatile-ttl, keys with a TTL make room for new writes: nothing is refused."""
    server = small(tmp_path)
    try:
        filler = server.client()
        for i in range(3000):  # about 12 MB of hour-long entries into 3 MB: evicting
            filler.set(f"cache:{i}", b"x" * 4096, ex=3600)
        assert int(filler.info("stats")["evicted_keys"]) > 0
        assert refusal(filler, PROBE) is None
    finally:
        server.kill()


def test_a_redis_without_a_maxmemory_or_that_does_not_answer_is_not_said_full(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    try:
        assert refusal(server.client(), PROBE) is None
    finally:
        server.kill()
    assert refusal(server.client(), PROBE) is None  # stopped: another failure, said elsewhere
