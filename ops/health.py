"""What the deep health check asks each dependency, each with a short timeout.

A shallow check says only that this web process answers (for a load balancer deciding
whether to send it requests); the deep one says whether the site can do its work, and
which dependency stops it (for a person or a monitor deciding what to fix). The queues'
check reads the sampler's figures (`labs.runs.telemetry`): a queue with no worker alive,
or a queue whose oldest run waited over its admission threshold (`LAB_ADMIT_OLDEST_S`
for the quick queue, `LAB_ADMIT_HEAVY_OLDEST_S` for the heavy one), makes the site
`degraded` (it answers and keeps stored results, but new runs are refused), not `down`.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

from labs.runs import redis_clients, redis_memory, telemetry_store
from labs.runs.admission import admit_oldest_s
from labs.runs.fair_share import shares
from school.celery import app as celery_app


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    # What a failed check makes the site: "down" (it cannot do its work) or "degraded".
    failing: str = "down"


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means the same: the database is down
        return Check("database", False, f"{type(error).__name__}: {error}")
    return Check("database", True, connection.vendor)


def check_redis(url: str | None = None) -> Check:
    """Redis answers a PING, and takes writes: a full one (`labs.runs.redis_memory`) stops
    the workers too, and is named as the cause."""
    client = redis_clients.health(url)
    try:
        client.ping()
    except redis.RedisError as error:
        return Check("redis", False, f"{type(error).__name__}: {error}")
    refused = redis_memory.refusal(client, telemetry_store.key("memory-probe"))
    if refused is not None:
        return Check("redis", False, f"{FULL}: {refused}")
    return Check("redis", True, "PONG")


FULL = (
    "full: it refuses writes (keys without a TTL fill its maxmemory), so the workers can "
    "neither beat nor acknowledge a task; free its memory or raise maxmemory"
)


def ping_workers(timeout_s: float) -> list[str]:
    """Names of the Celery workers that answered a control ping (the first is enough)."""
    replies = celery_app.control.ping(timeout=timeout_s, limit=1) or []  # None: no reply
    return [name for reply in replies for name in reply]


def beating_workers() -> list[str]:
    """Names of the workers of the site's queues that beat within `ALIVE_FOR_S`."""
    queues = [settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE]
    alive = telemetry_store.workers_alive(queues)
    return sorted({name for names in alive.values() for name in names})


def check_workers() -> Check:
    """Whether a worker is up: by the workers' beats (one read), else by a control ping.

    A ping waits `HEALTH_TIMEOUT_S` (2 s) for a worker's answer, which a loaded machine
    sometimes misses: it said "down: workers" with the workers up (the fault bench's
    finding 6). A beat is written every second from a thread of each worker's own and
    counts for `ALIVE_FOR_S` (3 s), so a worker that beats is up however slow its answers.
    The ping is asked only when none beats (a worker of a version that does not, or
    beats that cannot be written).
    """
    try:
        names = beating_workers()
    except redis.RedisError:
        names = []
    if names:
        return Check("workers", True, ", ".join(names))
    try:
        names = ping_workers(settings.HEALTH_TIMEOUT_S)
    except Exception as error:  # kombu raises several kinds for a broker it cannot reach
        return Check("workers", False, f"{type(error).__name__}: {error}")
    if not names:
        return Check(
            "workers", False, "no Celery worker beat or answered a ping: lab runs would wait"
        )
    return Check("workers", True, ", ".join(names))


def check_queues() -> Check:
    """Each queue has a worker alive, and its oldest run is young enough to admit more."""
    snap = telemetry_store.snapshot()
    if snap is None:
        return Check(
            "queues", False, "no queue figures: the sweeper's sampler is not running", "degraded"
        )
    problems, fine = [], []
    for queue in (settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE):
        figures = snap["queues"].get(queue, {})
        oldest = figures.get("oldest_s")
        said = f"{queue}: {figures.get('depth', 0)} waiting, oldest {oldest or 0:.1f} s"
        # On a fairly shared queue (labs.runs.fair_share) an old run deep in one class's
        # backlog refuses that class alone; every class is refused once the front is old.
        front = figures.get("front_oldest_s", oldest) if shares(queue) else oldest
        limit = admit_oldest_s(queue)
        if not figures.get("workers"):
            problems.append(f"{queue}: no worker alive")
        elif limit is not None and (front or 0) > limit:
            problems.append(f"{said} (over {limit} s: new runs refused)")
        elif limit is not None and (oldest or 0) > limit:
            fine.append(
                f"{said} (a class's own backlog: its new runs refused, other classes' "
                f"admitted), {figures['workers']} worker(s)"
            )
        else:
            fine.append(f"{said}, {figures['workers']} worker(s)")
    if problems:
        return Check("queues", False, "; ".join(problems + fine), "degraded")
    return Check("queues", True, "; ".join(fine))


def deep_checks() -> list[Check]:
    """Database, Redis, then the workers and queues (only when Redis answers: they are
    reached through it; a full one still answers, and may or may not have stopped them)."""
    checks = [check_database(), check_redis()]
    redis_check = checks[-1]
    if redis_check.ok or redis_check.detail.startswith(FULL):
        checks += [check_workers(), check_queues()]
    else:
        checks.append(
            Check("workers", False, "not asked: Redis, through which they are reached, is down")
        )
    return checks
