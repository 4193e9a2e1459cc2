"""Every Redis client the site's own code makes, each kind made once per process.

A client holds a connection pool. Made per call, a class pressing Run at once would open
(and close) a connection to Redis per press; made in several modules, the same kind of
client ended up with different timeouts depending on who made it. So each kind is made
here, once per process (per URL, so a test that points a setting elsewhere gets a client
of its own), with the timeouts that fit where it is used:

- `broker()`: a press's PING before a run is made and the run-ended announcement, 1 s;
- `sweeper_broker()`: the sweeper's reads of the broker (queue lengths, kombu's unacked
  messages), 0.5 s, so a slow Redis skips a sample rather than stall the loop;
- `telemetry()`: the sampler's figures, read by every page that shows them, 0.5 s;
- `health()`: `/healthz/deep`'s PING, `HEALTH_TIMEOUT_S`;
- `experiments(name)`: the experiments' Redis as the web sees it (the kept queue's panel,
  the capstone's control panel), the experiments' own timeouts and a connection name;
- `ended_subscriber()`: the one pub/sub connection a process listens on, made afresh
  after each loss.

Django's cache (`CACHES`) and Celery's broker connection are made by those libraries from
settings, and the experiments' workers make their own clients on purpose (one pool per
simulated worker, so a dropped link stays that worker's).
"""

from __future__ import annotations

import functools

import redis
from django.conf import settings

from labs.experiments.namespace import connect, redis_url

PRESS_TIMEOUT_S = 1.0
SWEEPER_TIMEOUT_S = 0.5
TELEMETRY_TIMEOUT_S = 0.5
SUBSCRIBER_CONNECT_TIMEOUT_S = 2
SUBSCRIBER_HEALTH_CHECK_S = 30


def broker(timeout_s: float = PRESS_TIMEOUT_S) -> redis.Redis:
    """The broker's Redis for a press: the PING before a run is made, the announcement."""
    return _pooled(settings.CELERY_BROKER_URL, timeout_s)


def sweeper_broker() -> redis.Redis:
    """The broker's Redis for the sweeper's loop: queue lengths, kombu's `unacked`."""
    return _pooled(settings.CELERY_BROKER_URL, SWEEPER_TIMEOUT_S)


def telemetry() -> redis.Redis:
    """The telemetry database (`labs.runs.telemetry_store`): a slow one must not hold a page."""
    return _pooled(settings.TELEMETRY_REDIS_URL, TELEMETRY_TIMEOUT_S)


def health(url: str | None = None) -> redis.Redis:
    """The Redis that `/healthz/deep` PINGs (`REDIS_URL` unless told)."""
    return _pooled(url or settings.REDIS_URL, settings.HEALTH_TIMEOUT_S)


def experiments(name: str, url: str | None = None) -> redis.Redis:
    """The experiments' Redis (`url`, else where the experiments' workers connect), under a
    connection `name` that CLIENT LIST shows."""
    return _experiments(url or redis_url(), name)


def ended_subscriber() -> redis.Redis:
    """A new client for the run-ended subscriber: a pub/sub holds its connection for good,
    and after losing it the subscriber starts over on a fresh client."""
    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL,
        socket_connect_timeout=SUBSCRIBER_CONNECT_TIMEOUT_S,
        health_check_interval=SUBSCRIBER_HEALTH_CHECK_S,
    )


def forget() -> None:
    """Drop every client made so far (a test that restarted or replaced a server)."""
    _pooled.cache_clear()
    _experiments.cache_clear()


@functools.cache
def _pooled(url: str, timeout_s: float) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)


@functools.cache
def _experiments(url: str, name: str) -> redis.Redis:
    return connect(url, name=name)
