"""Each kind of Redis client is made once per process, on its URL, with its timeouts."""

from __future__ import annotations

import pytest

from labs.runs import redis_clients

pytestmark = pytest.mark.nodb  # builds clients; connects to nothing


def options(client) -> dict:
    return client.connection_pool.connection_kwargs


@pytest.fixture(autouse=True)
def fresh():
    redis_clients.forget()
    yield
    redis_clients.forget()


def test_each_kind_is_made_once_with_its_timeouts(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    settings.TELEMETRY_REDIS_URL = "redis://127.0.0.1:6379/2"
    settings.HEALTH_TIMEOUT_S = 1.5
    kinds = {
        "broker": (redis_clients.broker, 0, 1.0),
        "sweeper_broker": (redis_clients.sweeper_broker, 0, 0.5),
        "telemetry": (redis_clients.telemetry, 2, 0.5),
        "health": (lambda: redis_clients.health("redis://127.0.0.1:6379/0"), 0, 1.5),
    }
    for name, (make, db, timeout_s) in kinds.items():
        client = make()
        assert make() is client, name
        assert options(client)["db"] == db, name
        assert options(client)["socket_timeout"] == timeout_s, name
        assert options(client)["socket_connect_timeout"] == timeout_s, name
    assert redis_clients.broker(0.2) is not redis_clients.broker()
    assert options(redis_clients.broker(0.2))["socket_timeout"] == 0.2


def test_a_url_changed_in_the_settings_gets_a_client_of_its_own(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    first = redis_clients.broker()
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/5"
    assert redis_clients.broker() is not first
    assert options(redis_clients.broker())["db"] == 5


def test_the_experiments_clients_are_named_and_the_subscriber_is_new_each_time(settings):
    panel = redis_clients.experiments("qlab-panel", "redis://127.0.0.1:6379/1")
    assert redis_clients.experiments("qlab-panel", "redis://127.0.0.1:6379/1") is panel
    assert options(panel)["client_name"] == "qlab-panel" and options(panel)["db"] == 1
    assert options(panel)["socket_timeout"] == 5.0
    assert redis_clients.ended_subscriber() is not redis_clients.ended_subscriber()
    assert options(redis_clients.ended_subscriber())["health_check_interval"] == 30
