"""Removing a student also purges the pages the cache kept with their name on them."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from accounts.removal import remove_student
from tests.teaching.test_term_end import term  # noqa: F401 - the fixture

pytestmark = pytest.mark.redis


def cached_values_naming(text: str, school) -> list[str]:
    """The cached copies of this class's pages whose text names `text` (other tests of the
    session cache other classes' pages, some naming their own alice)."""
    client = cache._cache.get_client()  # type: ignore[attr-defined]
    ours = (f":{school.class_a.pk}:", f":{school.assignment_a.pk}:")
    found = []
    for key in client.scan_iter(match=cache.make_key("*"), count=1000):
        name = key.decode()
        if not name.split(":", 2)[-1].startswith(("gradebook:", "class-results:")):
            continue
        if not any(part in name for part in ours):
            continue
        value = client.get(key)
        if value is not None and text.encode() in value:
            found.append(name)
    return found


def test_removal_purges_the_cached_gradebook_and_class_results(client, term):  # noqa: F811
    """The attack's D11: the cached copies kept the name for up to an hour."""
    term.alice.first_name = "Zenobia-Qx"
    term.alice.save()
    client.force_login(term.teacher)
    for page in (
        reverse("gradebook", args=[term.class_a.pk]),
        reverse("gradebook-csv", args=[term.class_a.pk]),
        reverse("assignment-results", args=[term.assignment_a.pk]),
    ):
        assert client.get(page).status_code == 200
    assert cached_values_naming("Zenobia-Qx", term) or cached_values_naming("alice", term)
    remove_student(term.alice)
    assert cached_values_naming("Zenobia-Qx", term) == []
    assert cached_values_naming(">alice<", term) == []


def test_removal_ends_the_students_sessions_and_their_copies_in_the_cache(client, term):  # noqa: F811
    from django.contrib.sessions.models import Session

    from school.sessions import SessionStore

    client.force_login(term.alice)
    key = client.session.session_key
    copy = cache.make_key(SessionStore.cache_key_prefix + key)
    assert cache._cache.get_client().exists(copy)  # type: ignore[attr-defined]
    remove_student(term.alice)
    assert not Session.objects.filter(session_key=key).exists()
    assert not cache._cache.get_client().exists(copy)  # type: ignore[attr-defined]
    assert not client.get(reverse("home")).wsgi_request.user.is_authenticated
