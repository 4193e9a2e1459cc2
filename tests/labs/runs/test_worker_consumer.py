"""The workers' consumer waits out a Redis that refuses writes as full: it tells that refusal
from other errors, closes each connection whose set-up was refused, waits longer between
tries, says so once, and stops waiting when the worker is told to stop. The worker that
meets a full Redis end to end: tests/e2e/test_redis_full.py."""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace

import kombu.exceptions
import pytest
import redis
from celery.exceptions import WorkerShutdown
from celery.utils.functional import noop
from celery.worker import state
from kombu.asynchronous import Hub

from labs.runs import worker_consumer
from labs.runs.worker_consumer import LONGEST_WAIT_S, Consumer, pause, refused_as_full
from school.celery import app as celery_app
from tests.redis_helpers import RedisServer, fill_without_ttl

FULL = "command not allowed when used memory > 'maxmemory'."


def test_a_refusal_for_want_of_memory_is_told_from_other_errors():
    assert refused_as_full(redis.OutOfMemoryError(FULL))
    # kombu passes Redis's words on inside its own error.
    wrapped = f"Command # 1 (LLEN labs) of pipeline caused error: {FULL}"
    assert refused_as_full(kombu.exceptions.OperationalError(wrapped))
    assert not refused_as_full(redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379"))
    assert not refused_as_full(redis.ResponseError("WRONGTYPE Operation against a key"))


def made(hub: Hub) -> Consumer:
    """The consumer as a worker makes it, with no pool (none of these tests runs a task)."""
    return Consumer(noop, app=celery_app, hub=hub, controller=SimpleNamespace(use_eventloop=True))


@pytest.fixture
def consumer():
    hub = Hub()
    yield made(hub)
    hub.close()


def test_it_waits_longer_each_try_while_redis_stays_full_and_says_so_once(
    consumer, monkeypatch, caplog
):
    waits: list[float] = []
    monkeypatch.setattr(worker_consumer, "pause", waits.append)
    caplog.set_level(logging.DEBUG, logger="labs.runs.worker_consumer")
    for _ in range(6):
        consumer.on_connection_error_before_connected(redis.OutOfMemoryError(FULL))
    # None at the first refusal, which may have been a moment's.
    assert waits == [1, 2, 4, LONGEST_WAIT_S, LONGEST_WAIT_S]
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "waits for room" in said[0]

    consumer.on_ready()  # consuming again: Redis took its writes
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2 and "room again" in said[1]
    consumer.on_connection_error_before_connected(redis.OutOfMemoryError(FULL))
    assert len(waits) == 5  # a new outage starts with a try at once


def test_other_errors_are_left_to_celery(consumer, monkeypatch, caplog):
    waits: list[float] = []
    monkeypatch.setattr(worker_consumer, "pause", waits.append)
    consumer.on_connection_error_before_connected(redis.ConnectionError("refused"))
    consumer.on_connection_error_before_connected(redis.ConnectionError("refused"))
    assert waits == [] and consumer.full_since is None
    assert "Cannot connect" in caplog.text  # Celery's own words, each try


def test_a_wait_ends_as_soon_as_the_worker_is_told_to_stop(monkeypatch):
    monkeypatch.setattr(state, "should_stop", 0)  # what a warm shutdown sets (EX_OK)
    with pytest.raises(WorkerShutdown):
        pause(3600)
    monkeypatch.setattr(state, "should_stop", None)
    pause(0)  # not told: returns


def clients(server: RedisServer) -> int:
    return int(server.client().info("clients")["connected_clients"])


@pytest.mark.redis
def test_a_connection_whose_set_up_a_full_redis_refused_is_closed(tmp_path, settings):
    """Each refused try used to leave two clients open (twelve a second while Redis stayed
    full, until it refused clients)."""
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    before = celery_app.conf.broker_url
    celery_app.conf.broker_url = server.url()
    celery_app._after_fork()
    hub = Hub()
    try:
        consumer = made(hub)
        fill_without_ttl(server)
        alone = clients(server)  # the test's own client
        for _ in range(3):
            with pytest.raises(redis.OutOfMemoryError):
                consumer.connect()  # kombu's restore lock (SET NX) is refused
        deadline = time.monotonic() + 30
        while clients(server) > alone and time.monotonic() < deadline:
            time.sleep(0.1)
        assert clients(server) == alone
    finally:
        hub.close()
        server.kill()
        celery_app.conf.broker_url = before
        celery_app._after_fork()
