"""What the deep health check asks each dependency, each with a short timeout.

A shallow check says only that this web process answers (for a load balancer deciding
whether to send it requests); the deep one says whether the site can do its work, and
which dependency stops it (for a person or a monitor deciding what to fix).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

from school.celery import app as celery_app


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means the same: the database is down
        return Check("database", False, f"{type(error).__name__}: {error}")
    return Check("database", True, connection.vendor)


def check_redis(url: str | None = None) -> Check:
    timeout = settings.HEALTH_TIMEOUT_S
    client = redis.Redis.from_url(
        url or settings.REDIS_URL, socket_connect_timeout=timeout, socket_timeout=timeout
    )
    try:
        client.ping()
    except redis.RedisError as error:
        return Check("redis", False, f"{type(error).__name__}: {error}")
    finally:
        client.close()
    return Check("redis", True, "PONG")


def ping_workers(timeout_s: float) -> list[str]:
    """Names of the Celery workers that answered a control ping (the first is enough)."""
    replies = celery_app.control.ping(timeout=timeout_s, limit=1) or []  # None: no reply
    return [name for reply in replies for name in reply]


def check_workers() -> Check:
    try:
        names = ping_workers(settings.HEALTH_TIMEOUT_S)
    except Exception as error:  # kombu raises several kinds for a broker it cannot reach
        return Check("workers", False, f"{type(error).__name__}: {error}")
    if not names:
        return Check("workers", False, "no Celery worker answered a ping: lab runs would wait")
    return Check("workers", True, ", ".join(names))


def deep_checks() -> list[Check]:
    """Database, Redis, then the workers (only when Redis answers: they are reached through it)."""
    checks = [check_database(), check_redis()]
    if checks[-1].ok:
        checks.append(check_workers())
    else:
        checks.append(
            Check("workers", False, "not asked: Redis, through which they are reached, is down")
        )
    return checks
