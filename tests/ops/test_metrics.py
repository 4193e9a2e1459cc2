"""/metrics: Prometheus's text format behind a token; the queue figures from the sampler
in the real Redis, HTTP requests by view, runs by lab and status."""

from __future__ import annotations

import pytest
from django.urls import reverse
from prometheus_client.parser import text_string_to_metric_families

from labs.runs import telemetry_store
from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from tests.base import make_user

pytestmark = [pytest.mark.redis, pytest.mark.django_db]
TOKEN = "a-scrape-token-for-the-tests"


def scrape(client, token=TOKEN):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.get(reverse("metrics"), **headers)


def samples(response) -> dict[tuple, float]:
    text = response.content.decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_without_a_token_set_there_is_no_endpoint(client, settings):
    settings.METRICS_TOKEN = ""
    assert scrape(client).status_code == 404
    assert scrape(client, token=None).status_code == 404


def test_a_wrong_or_missing_token_is_answered_404(client, settings):
    settings.METRICS_TOKEN = TOKEN
    assert scrape(client, token="wrong").status_code == 404
    assert scrape(client, token=None).status_code == 404


def test_the_queue_figures_runs_and_requests_are_scraped(client, settings, own_queues):
    settings.METRICS_TOKEN = TOKEN
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick])
    owner = make_user("alice")
    Run.objects.create(owner=owner, lab="drain", params={}, seed=1, queue=quick)
    Sampler().tick()
    client.get(reverse("healthz"))

    response = scrape(client)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    got = samples(response)
    assert got[("qlab_queue_depth", (("queue", quick),))] == 1
    assert got[("qlab_workers_alive", (("queue", quick),))] == 1
    assert got[("qlab_workers_alive", (("queue", heavy),))] == 0
    assert got[("qlab_runs_active", (("lab", "drain"), ("status", "queued")))] == 1
    assert got[("qlab_telemetry_snapshot_age_seconds", ())] < 60
    healthz = ("method", "GET"), ("status", "200"), ("view", "healthz")
    assert got[("qlab_http_requests_total", healthz)] >= 1


def test_made_up_http_methods_are_counted_as_other(client, settings):
    """The attack's D10: each made-up method used to add a series, without bound."""
    settings.METRICS_TOKEN = TOKEN
    for method in ("QWERTYUIOPAS", "ZXCVBNMLKJHG", "POIUYTREWQAS"):
        client.generic(method, "/")
    methods = {
        dict(labels).get("method")
        for (name, labels) in samples(scrape(client))
        if name == "qlab_http_requests_total"
    }
    assert "QWERTYUIOPAS" not in methods
    assert "other" in methods


def test_a_full_redis_is_said_by_a_metric(client, settings, tmp_path):
    """The attack's D4: a Redis at its maxmemory evicting entries showed on no gauge."""
    from labs.runs import redis_clients
    from tests.redis_helpers import RedisServer

    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    try:
        settings.METRICS_TOKEN = TOKEN
        settings.CACHE_REDIS_URL = server.url(2)
        redis_clients.forget()
        filler = server.client(2)
        for i in range(3000):
            filler.set(f"cache:{i}", "x" * 4096, ex=3600)
        got = samples(scrape(client))
        assert got[("qlab_redis_short_of_memory", (("redis", "cache"),))] == 1.0
        assert got[("qlab_redis_evicted_keys_total", (("redis", "cache"),))] > 0
    finally:
        redis_clients.forget()
        server.kill()
