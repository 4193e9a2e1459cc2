"""A kept dead-letter queue survives a full Redis for its promised hour, and the panel is
honest when one is gone early anyway. Real eviction: a Redis server of the test's own with
a small `maxmemory` and `./dev`'s `volatile-ttl`, filled with entries that live an hour
(as the site's cache entries do) while the retained queue has ten minutes of its hour left:
its keys' TTL is longer than the hour (`KEPT_GUARD_S`), so the filler is evicted, not it.
Past the hour the panel says it is gone and the sweeper deletes it."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.experiments.namespace import KEPT_GUARD_S, Namespace, kept_id, run_key_for
from labs.runs import redis_clients, retained_queue
from labs.runs.models import Run
from labs.runs.retained_caps import enforce_retained_caps
from labs.web.presenters import present_panel
from tests.base import make_user
from tests.live_helpers import keep_parked
from tests.redis_helpers import RedisServer

pytestmark = [pytest.mark.redis, pytest.mark.django_db]
LAB = "poison-live"
HOUR_PROMISE = "is kept for 1 hour"


@pytest.fixture
def small_redis(tmp_path, settings, monkeypatch):
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    settings.EXPERIMENT_REDIS_URL = server.url(1)
    monkeypatch.setenv("EXPERIMENT_REDIS_URL", server.url(1))
    redis_clients.forget()
    try:
        yield server
    finally:
        redis_clients.forget()
        server.kill()


def finished_run(minutes_ago: float) -> Run:
    return Run.objects.create(
        owner=make_user("alice"), lab=LAB, params={}, seed=1, status=Run.Status.SUCCEEDED,
        finished_at=timezone.now() - timedelta(minutes=minutes_ago), queue="q",
    )  # fmt: skip


def retained_keys(server: RedisServer, run: Run) -> list[str]:
    return Namespace(kept_id(run_key_for(run.pk))).keys(server.client(1))


def panel(run: Run) -> str:
    view = present_panel(run, get_lab(LAB), run.owner)
    assert view is not None
    return view.gone


def ten_minutes_left(server: RedisServer, run: Run) -> None:
    """As if the queue was kept 50 minutes ago: its hour ends in 10, its keys 3 h later."""
    r = server.client(1)
    r.hset(Namespace(kept_id(run_key_for(run.pk))).key("kept"), "ends_at", time.time() + 600)
    for key in retained_keys(server, run):
        r.expire(key, 600 + int(KEPT_GUARD_S))


def fill(server: RedisServer, until_evicted: int) -> None:
    """Entries that live an hour (like the fragment cache's) until Redis has evicted some."""
    filler = server.client(2)
    for i in range(20_000):
        filler.set(f"cache:{i}", "x" * 4096, ex=3600)
        if i % 100 == 0 and int(filler.info("stats")["evicted_keys"]) >= until_evicted:
            return
    pytest.fail("Redis never filled up")


def test_a_full_redis_evicts_other_entries_before_a_retained_queue_in_its_hour(small_redis):
    run = finished_run(minutes_ago=50)
    keep_parked(run.pk, ["pdf-1", "pdf-2"])
    ten_minutes_left(small_redis, run)
    kept = retained_keys(small_redis, run)
    assert panel(run) == ""  # the queue is there and shown

    fill(small_redis, until_evicted=300)

    assert retained_keys(small_redis, run) == kept  # every key of it survived
    assert panel(run) == ""
    assert retained_queue.snapshot(run.pk)["expires_in_min"] == 10

    # Should it go anyway (a Redis full of retained queues), the panel says why.
    small_redis.client(1).delete(*kept)
    said = panel(run)
    assert "ran out of memory and removed it" in said
    assert HOUR_PROMISE not in said


def test_past_its_hour_a_retained_queue_is_gone_and_the_sweeper_deletes_it(small_redis):
    run = finished_run(minutes_ago=61)
    keep_parked(run.pk, ["pdf-1"])
    r = small_redis.client(1)
    r.hset(Namespace(kept_id(run_key_for(run.pk))).key("kept"), "ends_at", time.time() - 60)
    assert retained_keys(small_redis, run)  # its keys outlive the hour (their TTL is longer)

    assert HOUR_PROMISE in panel(run)
    assert enforce_retained_caps() == 1
    assert retained_keys(small_redis, run) == []


def test_a_retained_queue_lost_in_a_restart_is_said_to_be_lost(small_redis):
    run = finished_run(minutes_ago=5)
    keep_parked(run.pk, ["pdf-1"])
    small_redis.shutdown_nosave()
    small_redis.start()  # empty, and nothing evicted since it started

    said = panel(run)
    assert "lost it (it was restarted or emptied)" in said
    assert HOUR_PROMISE not in said
