"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

# Under pytest-xdist each worker process has a database of its own (pytest-django adds the
# worker's name to it), so it needs Redis keys of its own too: the names below are made
# anew in each worker, never inherited from the process that started it.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
# The queue figures and the workers' beats of this test session, apart from the site's
# and other checkouts' on the shared Redis (a worker process started by a test inherits it).
if _WORKER or "TELEMETRY_PREFIX" not in os.environ:
    os.environ["TELEMETRY_PREFIX"] = f"test-telemetry-{_WORKER}{uuid.uuid4().hex[:8]}"
# Its own cache keys too: Redis outlives a session, and a fragment another session cached
# under the same run number or form values would be served in this one.
if _WORKER or "CACHE_KEY_PREFIX" not in os.environ:
    os.environ["CACHE_KEY_PREFIX"] = f"test-{_WORKER}{uuid.uuid4().hex[:8]}"

NO_DATABASE_DIRS = (
    ("labs", "sim"),
    ("labs", "experiments"),
)  # the pure models, the Redis experiments
# A test reaches the database only through one of these (pytest-django refuses any other
# access), or as a Django TestCase.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
     "live_server"}
)  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A test that touches no database gives the same answer on SQLite and PostgreSQL, so
    # the second (PostgreSQL) pass of ./dev test skips it: the pure models, the Redis
    # experiments, and every other test that asks for no database (about half the suite).
    here = Path(__file__).parent
    for item in items:
        rel = Path(item.fspath).relative_to(here)
        if rel.parts[:2] in NO_DATABASE_DIRS or not uses_the_database(item):
            item.add_marker(pytest.mark.nodb)


def uses_the_database(item: pytest.Item) -> bool:
    if item.get_closest_marker("django_db") is not None:
        return True
    if DATABASE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    cls = getattr(item, "cls", None)
    if cls is None:
        return False
    from django.test import TransactionTestCase

    return issubclass(cls, TransactionTestCase)


@pytest.fixture(autouse=True, scope="session")
def _telemetry_of_this_session():
    """Point the telemetry at this session's keys, and delete them afterwards."""
    from django.conf import settings

    if not settings.configured:  # the pure models' run (-p no:django) has no settings
        yield
        return
    settings.TELEMETRY_PREFIX = os.environ["TELEMETRY_PREFIX"]
    yield
    import redis

    try:
        r = redis.Redis.from_url(settings.TELEMETRY_REDIS_URL, socket_connect_timeout=1)
        keys = list(r.scan_iter(match=f"{settings.TELEMETRY_PREFIX}:*", count=1000))
        if keys:
            r.delete(*keys)
    except redis.RedisError:
        pass  # no Redis in this session: nothing was written


@pytest.fixture(autouse=True, scope="session")
def _settings_of_this_session():
    """This process's cache under the session's prefix (settings were read before this
    file), and presses that do not wait for their runs."""
    from django.conf import settings

    if not settings.configured:
        yield
        return
    from django.test.utils import override_settings

    default = settings.CACHES["default"] | {"KEY_PREFIX": os.environ["CACHE_KEY_PREFIX"]}
    # No press waits for its run (labs.runs.ended) unless a test with a real worker asks:
    # most tests publish to no worker, and each press would wait out the whole moment.
    with override_settings(CACHES=settings.CACHES | {"default": default}, LAB_PRESS_WAIT_S=0):
        yield


@pytest.fixture(autouse=True)
def _no_language_left_over():
    """Start every test with no language active in this thread.

    A request in Marathi leaves Marathi active after it returns (LocaleMiddleware
    activates, nothing deactivates), and a later test in the same process would read
    English assertions against Marathi text.
    """
    yield
    from django.conf import settings

    if settings.configured:
        from django.utils import translation

        translation.deactivate()


@pytest.fixture
def people(db):
    from tests.base import make_people

    return make_people()


@pytest.fixture
def published(monkeypatch):
    """Record what would be sent to the broker instead of sending it."""
    sent: list[dict] = []
    monkeypatch.setattr(
        "labs.runs.dispatch.execute_run.apply_async", lambda **kwargs: sent.append(kwargs)
    )
    monkeypatch.setattr("labs.runs.dispatch.check_broker", lambda: None)
    return sent


@pytest.fixture
def school(db):
    from tests.base import make_school

    return make_school()


@pytest.fixture
def frozen(monkeypatch):
    """Set the clock the views and forms read: `frozen(moment)`."""

    def freeze(moment):
        monkeypatch.setattr("django.utils.timezone.now", lambda: moment)
        return moment

    return freeze


@pytest.fixture
def own_queues(settings):
    """Quick and heavy queue names and a telemetry prefix nobody else uses; the sampler's
    leader key, snapshot and samples start empty and are deleted afterwards."""
    tag = uuid.uuid4().hex[:8]
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = f"t-quick-{tag}", f"t-heavy-{tag}"
    settings.TELEMETRY_PREFIX = f"{settings.TELEMETRY_PREFIX}-{tag}"
    yield settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE
    from labs.runs import telemetry_store

    r = telemetry_store.client()
    keys = list(r.scan_iter(match=f"{settings.TELEMETRY_PREFIX}:*"))
    if keys:
        r.delete(*keys)
