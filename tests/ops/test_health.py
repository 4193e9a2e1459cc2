"""Health checks: the shallow one answers alone, the deep one names what is down."""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from labs.runs import telemetry_store
from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from tests.base import make_user

pytestmark = pytest.mark.redis
TOKEN = "test-monitor-token"


@pytest.fixture
def client(settings):
    """A monitor with the health token: it is shown each check's detail."""
    from django.test import Client

    settings.HEALTH_TOKEN = TOKEN
    return Client(headers={"authorization": f"Bearer {TOKEN}"})


@pytest.mark.django_db
def test_anyone_else_gets_the_status_without_hosts_or_errors(settings):
    from django.test import Client

    settings.HEALTH_TOKEN = TOKEN
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.HEALTH_TIMEOUT_S = 1
    for headers in ({}, {"authorization": "Bearer wrong"}):
        body = Client(headers=headers).get(reverse("healthz-deep")).json()
        assert body["status"] == "down" and "redis" in body["down"]
        assert "checks" not in body and "127.0.0.1" not in str(body)
    staff = Client()
    staff.force_login(_staff())
    assert "checks" in staff.get(reverse("healthz-deep")).json()


def _staff():
    user = make_user("ops-staff")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def closed_port() -> int:
    """A port nothing listens on: bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_shallow_check_answers_without_its_dependencies(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_the_deep_check_names_redis_when_redis_is_unreachable(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.HEALTH_TIMEOUT_S = 1
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert "redis" in body["down"]
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["redis"]["ok"] is False
    assert "Connection" in body["checks"]["redis"]["detail"]


@pytest.mark.django_db
def test_the_deep_check_names_the_workers_when_none_answers(client, monkeypatch):
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: [])
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 503
    assert response.json()["down"] == ["workers"]


@pytest.mark.django_db
def test_a_worker_that_beats_is_up_though_it_missed_the_ping(client, monkeypatch, own_queues):
    """The fault bench's finding 6: on a loaded machine a worker sometimes misses the
    ping's 2 s, and the deep check said "down: workers" with the workers up. Its beats
    (written every second from a thread of its own) say it is up; no ping is waited for."""
    quick, heavy = own_queues

    def ping(timeout_s):
        pinged.append(timeout_s)
        return []  # the answer came too late

    pinged: list[float] = []
    monkeypatch.setattr("ops.health.ping_workers", ping)
    telemetry_store.beat("quick-1@here", [quick])
    telemetry_store.beat("heavy@here", [heavy])
    Sampler().tick()
    body = client.get(reverse("healthz-deep")).json()
    assert (body["status"], body["down"]) == ("ok", [])
    assert body["checks"]["workers"] == {"ok": True, "detail": "heavy@here, quick-1@here"}
    assert pinged == []


@pytest.mark.django_db
def test_with_no_beat_a_worker_that_answers_the_ping_is_up(client, monkeypatch, own_queues):
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["old@here"])
    body = client.get(reverse("healthz-deep")).json()
    assert body["checks"]["workers"] == {"ok": True, "detail": "old@here"}


@pytest.mark.django_db
def test_a_full_redis_is_named_full_and_the_workers_judged_by_their_beats(
    client, monkeypatch, settings, tmp_path, own_queues
):
    """The fault bench's finding 5: a Redis full of keys without a TTL stops the workers
    (their acknowledgements and beats are refused); the check said "down: workers" and
    Redis "PONG". Now Redis is named, full; the workers are judged as ever (here they
    beat: a Redis hovering at its limit does not always stop them)."""
    from labs.runs import redis_clients
    from tests.redis_helpers import RedisServer, fill_without_ttl

    quick, heavy = own_queues
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    settings.REDIS_URL = server.url(0)
    redis_clients.forget()
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: [])
    try:
        fill_without_ttl(server)
        telemetry_store.beat("w@here", [quick, heavy])  # the telemetry's Redis has room
        Sampler().tick()
        body = client.get(reverse("healthz-deep")).json()
    finally:
        redis_clients.forget()
        server.kill()
    assert (body["status"], body["down"]) == ("down", ["redis"])
    assert body["checks"]["redis"]["detail"].startswith("full: it refuses writes")
    assert body["checks"]["workers"] == {"ok": True, "detail": "w@here"}


@pytest.mark.django_db
def test_the_deep_check_is_ok_when_everything_answers(client, monkeypatch, own_queues):
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["serve-1@here"])
    telemetry_store.beat("serve-1@here", list(own_queues))
    Sampler().tick()
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["redis"] == {"ok": True, "detail": "PONG"}
    assert body["checks"]["workers"]["detail"] == "serve-1@here"
    assert body["checks"]["queues"]["ok"] is True


@pytest.mark.django_db
def test_the_deep_check_is_degraded_naming_the_queue_with_no_worker(
    client, monkeypatch, own_queues
):
    quick, heavy = own_queues
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["heavy@here"])
    telemetry_store.beat("heavy@here", [heavy])
    Sampler().tick()
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["down"], body["degraded"]) == ("degraded", [], ["queues"])
    assert body["checks"]["queues"]["detail"].startswith(f"{quick}: no worker alive; {heavy}: 0")


@pytest.mark.django_db
def test_the_deep_check_is_degraded_saying_the_oldest_age_over_the_threshold(
    client, monkeypatch, own_queues, settings
):
    quick, heavy = own_queues
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["w@here"])
    telemetry_store.beat("w@here", [quick, heavy])
    owner = make_user("alice")
    Run.objects.create(
        owner=owner, lab="drain", params={}, seed=1, queue=quick,
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_OLDEST_S + 2.5),
    )  # fmt: skip
    Sampler().tick()
    body = client.get(reverse("healthz-deep")).json()
    assert body["status"] == "degraded"
    detail = body["checks"]["queues"]["detail"]
    assert detail.startswith(f"{quick}: 1 waiting, oldest 12.")
    assert "(over 10 s: new runs refused)" in detail


@pytest.mark.django_db
def test_an_old_run_deep_in_one_classs_share_leaves_the_site_healthy(
    client, monkeypatch, own_queues, settings
):
    """An old run sent at a low priority (a class's flood, `labs.runs.fair_share`) refuses
    that class alone: other classes are admitted, so the site is not degraded for it."""
    quick, heavy = own_queues
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["w@here"])
    telemetry_store.beat("w@here", [quick, heavy])
    Run.objects.create(
        owner=make_user("alice"), lab="drain", params={}, seed=1, queue=quick, priority=5,
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_OLDEST_S + 2.5),
    )  # fmt: skip
    Sampler().tick()
    body = client.get(reverse("healthz-deep")).json()
    assert body["status"] == "ok"
    detail = body["checks"]["queues"]["detail"]
    assert detail.startswith(f"{quick}: 1 waiting, oldest 12.")
    assert "(a class's own backlog: its new runs refused, other classes' admitted)" in detail


@pytest.mark.django_db
def test_the_deep_check_is_degraded_when_no_sampler_runs(client, monkeypatch, own_queues):
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["w@here"])
    body = client.get(reverse("healthz-deep")).json()
    assert body["status"] == "degraded"
    assert "sampler is not running" in body["checks"]["queues"]["detail"]


@pytest.mark.django_db
def test_the_deep_check_names_the_heavy_queue_over_its_own_threshold(
    client, monkeypatch, own_queues, settings
):
    quick, heavy = own_queues
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["w@here"])
    telemetry_store.beat("w@here", [quick, heavy])
    Run.objects.create(
        owner=make_user("alice"), lab="fifo-live", params={}, seed=1, queue=heavy,
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_HEAVY_OLDEST_S + 3),
    )  # fmt: skip
    Sampler().tick()
    body = client.get(reverse("healthz-deep")).json()
    assert body["status"] == "degraded"
    detail = body["checks"]["queues"]["detail"]
    assert detail.startswith(f"{heavy}: 1 waiting, oldest 123.")
    assert "(over 120 s: new runs refused)" in detail
