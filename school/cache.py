"""Django's Redis cache, with one Redis client per connection pool, not one per call.

Django's `RedisCacheClient.get_client` wraps its pool in a new `redis.Redis` for every
cache call, and redis-py's constructor fills a table of some 170 response callbacks each
time. A draft's post makes about ten cache calls (its idempotency key and remembered
answer, the rendered fragments, the draft pages' bounds): a few ms of the web's CPU per
draft went on making clients (bench/draft_profile.py). A client keeps nothing of its own
but its pool and is safe to share between threads, so one per pool is kept.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class OneClientPerPool(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[Any, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own private helpers, as its `get_client` calls them (no stubs for them).
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(pool)
        if client is None:
            make = self._client  # type: ignore[attr-defined]
            client = self._clients[pool] = make(connection_pool=pool)
        return client


class ReusingRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache`, its clients kept (module doc)."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = OneClientPerPool
