"""Fixtures for the tests that talk to the real Redis on REDIS_URL.

Each test gets its own namespace, and the fixture deletes it afterwards and checks that
nothing is left, so the tests can run beside thirty students (and each other) on one server.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
import redis

from labs.experiments.namespace import Namespace, connect, redis_url


@pytest.fixture(scope="session")
def r() -> Iterator[redis.Redis]:
    client = connect(name="qlab-tests")
    try:
        client.ping()
    except redis.ConnectionError as error:  # fail loudly: these tests exist to use the server
        pytest.fail(f"no Redis at {redis_url()}: {error}")
    yield client
    client.close()


@pytest.fixture
def ns(r: redis.Redis) -> Iterator[Namespace]:
    namespace = Namespace(ttl_s=120)
    yield namespace
    namespace.cleanup(r)
    assert namespace.keys(r) == []


def wait_for(condition: Callable[[], bool], timeout_s: float = 10.0, step_s: float = 0.01) -> bool:
    """Poll `condition` until it holds; False if it did not within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step_s)
    return condition()
