"""Sessions are read from the cache's copy, and a failing cache signs no one out."""

from __future__ import annotations

import pytest
import redis
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from school.sessions import COPY_TTL_S, SessionStore
from tests.base import PASSWORD

pytestmark = pytest.mark.redis


def session_queries(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries if "django_session" in q["sql"]]


def copy_key(session_key: str) -> str:
    return cache.make_key(SessionStore.cache_key_prefix + session_key)


@pytest.fixture
def cache_down(monkeypatch):
    """Every call of the cache fails as an unreachable Redis does."""

    def down(*args, **kwargs):
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for name in ("get", "set", "delete", "has_key", "add", "get_many"):
        monkeypatch.setattr(RedisCache, name, down)


def test_a_signed_in_page_reads_its_session_from_the_cache_not_the_database(client, people):
    # A class's phones call about a hundred times a second: a query each was web CPU.
    client.force_login(people.alice)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("home")).status_code == 200
    assert session_queries(queries) == []
    assert cache._cache.get_client().ttl(copy_key(client.session.session_key)) <= COPY_TTL_S


def test_a_session_with_no_copy_is_read_from_the_database_and_copied(client, people):
    client.force_login(people.alice)
    key = client.session.session_key
    cache._cache.get_client().delete(copy_key(key))  # evicted, or Redis restarted empty
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("home"))
    assert page.status_code == 200 and page.wsgi_request.user == people.alice
    assert len(session_queries(queries)) == 1
    assert cache._cache.get_client().exists(copy_key(key))


def test_a_failing_cache_signs_no_one_out_and_answers_no_500(client, people, cache_down):
    client.force_login(people.alice)  # saved in the database, the copy skipped
    page = client.get(reverse("home"))
    assert page.status_code == 200 and page.wsgi_request.user == people.alice
    key = client.session.session_key
    assert client.post(reverse("logout")).status_code == 302
    assert not Session.objects.filter(session_key=key).exists()
    again = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert again.status_code == 302
    assert client.get(reverse("home")).wsgi_request.user == people.alice


def test_a_logout_deletes_the_copy_with_the_row(client, people):
    client.force_login(people.alice)
    key = client.session.session_key
    assert cache._cache.get_client().exists(copy_key(key))
    client.post(reverse("logout"))
    assert not cache._cache.get_client().exists(copy_key(key))
    assert not Session.objects.filter(session_key=key).exists()
