"""Health checks: the shallow one answers alone, the deep one names what is down."""

from __future__ import annotations

import socket

import pytest
from django.urls import reverse

pytestmark = pytest.mark.redis


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
def test_the_deep_check_is_ok_when_everything_answers(client, monkeypatch):
    monkeypatch.setattr("ops.health.ping_workers", lambda timeout_s: ["serve-1@here"])
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["redis"] == {"ok": True, "detail": "PONG"}
    assert body["checks"]["workers"]["detail"] == "serve-1@here"
