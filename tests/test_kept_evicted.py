"""A kept dead-letter queue that a full Redis evicted (or a restart lost) before its hour
was up: the queue panel says so, never "kept for 1 hour". Real eviction: a Redis server of
the test's own with a small `maxmemory` and `./dev`'s `volatile-ttl`, filled with entries
that live longer than what is left of the kept queue, as the site's cache entries do."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.experiments.namespace import Namespace, kept_id, run_key_for
from labs.runs import kept_queue
from labs.runs.models import Run
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
    kept_queue.client.cache_clear()
    try:
        yield server
    finally:
        kept_queue.client.cache_clear()
        server.kill()


def finished_run(minutes_ago: float) -> Run:
    return Run.objects.create(
        owner=make_user("alice"), lab=LAB, params={}, seed=1, status=Run.Status.SUCCEEDED,
        finished_at=timezone.now() - timedelta(minutes=minutes_ago), queue="q",
    )  # fmt: skip


def kept_keys(server: RedisServer, run: Run) -> list[str]:
    return Namespace(kept_id(run_key_for(run.pk))).keys(server.client(1))


def panel(run: Run) -> str:
    view = present_panel(run, get_lab(LAB), run.owner)
    assert view is not None
    return view.gone


def test_a_kept_queue_evicted_by_a_full_redis_is_said_to_be_so(small_redis):
    run = finished_run(minutes_ago=50)
    keep_parked(run.pk, ["pdf-1", "pdf-2"])
    r = small_redis.client(1)
    for key in kept_keys(small_redis, run):
        r.expire(key, 600)  # 50 minutes after the run: 10 left of its hour
    assert panel(run) == ""  # the queue is there and shown

    # Fill the server with entries that live longer (an hour, like the fragment cache's).
    filler = small_redis.client(2)
    for i in range(5000):
        filler.set(f"cache:{i}", "x" * 4096, ex=3600)
        if i % 50 == 0 and not kept_keys(small_redis, run):
            break
    assert int(r.info("stats")["evicted_keys"]) > 0
    assert kept_keys(small_redis, run) == []  # the shortest TTLs went first: the queue

    said = panel(run)
    assert "ran out of memory and removed it" in said
    assert HOUR_PROMISE not in said


def test_a_kept_queue_lost_in_a_restart_is_said_to_be_lost_and_one_past_its_hour_expired(
    small_redis,
):
    run = finished_run(minutes_ago=5)
    keep_parked(run.pk, ["pdf-1"])
    small_redis.shutdown_nosave()
    small_redis.start()  # empty, and nothing evicted since it started

    said = panel(run)
    assert "lost it (it was restarted or emptied)" in said
    assert HOUR_PROMISE not in said

    Run.objects.filter(pk=run.pk).update(finished_at=timezone.now() - timedelta(minutes=61))
    run.refresh_from_db()
    assert HOUR_PROMISE in panel(run)  # its hour is up: it expired as promised
