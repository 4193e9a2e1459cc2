"""The shared cache makes one Redis client per connection pool, not one per call."""

from __future__ import annotations

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.redis


def test_every_call_uses_the_same_client_and_the_cache_still_works():
    client = cache._cache.get_client(write=True)
    cache.set("one-client-test", {"n": 1}, 30)
    assert cache.get("one-client-test") == {"n": 1}
    assert cache._cache.get_client() is client
    assert cache._cache.get_client("any key", write=True) is client
    cache.delete("one-client-test")
