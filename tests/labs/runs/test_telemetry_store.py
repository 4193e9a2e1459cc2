"""Redis never lies about the workers: a full Redis under `volatile-ttl` evicts entries
that live an hour (as the site's cache does), never the workers' beats or the sampler's
snapshot, so admission never says "no lab runner is up" while one is. Real eviction, on a
Redis server of the test's own with a small `maxmemory`."""

from __future__ import annotations

import time

import pytest

from labs.runs import admission, redis_clients, telemetry_store
from labs.runs.telemetry import Sampler
from tests.redis_helpers import RedisServer

pytestmark = [pytest.mark.redis, pytest.mark.django_db]
QUEUE = "labs-heavy-test"


@pytest.fixture
def small_redis(tmp_path, settings):
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    settings.TELEMETRY_REDIS_URL = server.url(0)
    redis_clients.forget()
    try:
        yield server
    finally:
        redis_clients.forget()
        server.kill()


def fill(server: RedisServer, until_evicted: int) -> None:
    """Entries that live an hour (like the fragment cache's) until Redis has evicted some."""
    filler = server.client(0)
    for i in range(20_000):
        filler.set(f"cache:{i}", "x" * 4096, ex=3600)
        if i % 100 == 0 and int(filler.info("stats")["evicted_keys"]) >= until_evicted:
            return
    pytest.fail("Redis never filled up")


def test_a_full_redis_keeps_the_workers_beats_and_the_snapshot(small_redis):
    now = time.time()
    telemetry_store.beat("heavy-1@host", [QUEUE], now=now)
    snap = {"t": now, "queues": {QUEUE: {"workers": 1, "oldest_s": 0}}}
    Sampler()._write({"t": now, "q": {}}, snap, {})  # as the sampler writes it

    fill(small_redis, until_evicted=300)

    assert telemetry_store.workers_alive([QUEUE], now=now) == {QUEUE: ["heavy-1@host"]}
    assert telemetry_store.snapshot() == snap
    assert admission.runners_refusal(QUEUE) is None


def test_a_snapshot_older_than_its_life_is_no_snapshot(small_redis):
    snap = {"t": 1000.0, "queues": {}}
    Sampler()._write({"t": 1000.0, "q": {}}, snap, {})
    assert telemetry_store.snapshot(now=1000.0 + telemetry_store.SNAPSHOT_TTL_S - 1) == snap
    assert telemetry_store.snapshot(now=1000.0 + telemetry_store.SNAPSHOT_TTL_S + 1) is None


def test_a_worker_that_stops_beating_is_removed_by_the_next_beat(small_redis):
    telemetry_store.beat("old@host", [QUEUE], now=1000.0)
    telemetry_store.beat("new@host", [QUEUE], now=1000.0 + telemetry_store.WORKERS_TTL_S + 1)
    members = small_redis.client(0).zrange(telemetry_store.key("workers", QUEUE), 0, -1)
    assert members == [b"new@host"]
    assert small_redis.client(0).ttl(telemetry_store.key("workers", QUEUE)) == -1  # no TTL
