"""A draft post older than one already taken from its page deletes nothing and is answered
"superseded" (`labs.runs.draft_order`, `labs.runs.drafts.start_draft`).

On the real Redis (the cache's, under this session's key prefix): the order must hold
across web processes, so nothing of it is in a process's memory.
"""

from __future__ import annotations

import re
import uuid

import pytest
import redis
from django.core.cache import cache
from django.urls import reverse

from labs.runs import draft_order
from labs.runs.models import Run
from tests.labs.runs.test_run_caps import defaults_form

pytestmark = pytest.mark.redis

HX = {"HTTP_HX_REQUEST": "true"}


def new_page() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def post(client, people, published, django_capture_on_commit_callbacks):
    """`post(page, number, **changes)`: alice's drain form with `changes`, posted as a draft
    from `page` with its number there (no page: none sent, as a page cached before)."""
    client.force_login(people.alice)
    used: set[str] = set()

    def go(page: str | None, number: int | None, **changes):
        data = defaults_form("drain") | {k: str(v) for k, v in changes.items()}
        if page is not None:
            used.add(page)
            data |= {"draft_page": page, "draft_post": str(number)}
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("lab-draft", args=["drain"]), data, **HX)

    yield go
    client_ = cache._cache.get_client(write=True)
    for page in used:  # only the keys this test made
        client_.delete(draft_order.key(people.alice.pk, "drain", page))


def made(response) -> Run:
    assert response.status_code == 200, response.content.decode()[:1000]
    found = re.search(r'id="run-([0-9a-f-]{36})"', response.content.decode())
    assert found, response.content.decode()[:1000]
    return Run.objects.get(pk=found.group(1))


def superseded(response) -> bool:
    return response.status_code == 204 and response.get("Draft-Superseded") == "true"


def test_an_older_post_arriving_second_deletes_nothing_and_is_answered_superseded(post, published):
    page = new_page()
    newer = made(post(page, 5, per_worker=160))
    older = post(page, 4, per_worker=150)
    assert superseded(older), (older.status_code, older.content[:300])
    assert older.content == b""
    # The newer post's draft is still queued for its worker, and nothing else was made.
    assert list(Run.objects.values_list("pk", "status")) == [(newer.pk, Run.Status.QUEUED)]
    assert [m["args"] for m in published] == [(str(newer.pk),)]


def test_a_newer_post_still_replaces_the_older_ones_draft(post):
    page = new_page()
    older = made(post(page, 4, per_worker=150))
    newer = made(post(page, 5, per_worker=160))
    assert list(Run.objects.values_list("pk", flat=True)) == [newer.pk]
    assert older.pk != newer.pk


def test_the_same_post_sent_again_is_taken_again(post):
    page = new_page()
    made(post(page, 3, per_worker=150))
    again = made(post(page, 3, per_worker=150))
    assert Run.objects.filter(pk=again.pk).exists()


def test_a_reloaded_page_starts_its_numbers_again_and_is_not_refused_as_old(post):
    before = new_page()
    made(post(before, 40, per_worker=150))
    after = made(post(new_page(), 1, per_worker=160))  # the page loaded again
    assert list(Run.objects.values_list("pk", flat=True)) == [after.pk]


def test_two_tabs_of_one_lab_never_refuse_each_others_posts(post):
    one, two = new_page(), new_page()
    made(post(one, 9, per_worker=150))
    made(post(two, 1, per_worker=160))
    made(post(one, 10, per_worker=170))
    made(post(two, 2, per_worker=180))
    # Each tab's own order still holds.
    assert superseded(post(one, 8, per_worker=190))
    assert superseded(post(two, 1, per_worker=190))


def test_a_page_cached_before_the_numbers_is_judged_by_arrival_as_before(post):
    page = new_page()
    made(post(page, 5, per_worker=160))
    unnumbered = made(post(None, None, per_worker=150))
    assert list(Run.objects.values_list("pk", flat=True)) == [unnumbered.pk]


def test_a_superseded_post_sent_again_with_its_key_is_still_answered_superseded(client, post):
    page = new_page()
    made(post(page, 5, per_worker=160))
    data = defaults_form("drain") | {"draft_page": page, "draft_post": "4"}
    headers = {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}
    url = reverse("lab-draft", args=["drain"])
    first = client.post(url, data, **HX, **headers)
    again = client.post(url, data, **HX, **headers)
    assert superseded(first) and superseded(again)
    assert again.has_header("Idempotent-Replayed")  # the first answer, told again


def test_a_pages_newest_number_expires_with_its_ttl(post, people):
    page = new_page()
    made(post(page, 2, per_worker=150))
    client = cache._cache.get_client(write=True)
    ttl = client.ttl(draft_order.key(people.alice.pk, "drain", page))
    assert 0 < ttl <= draft_order.ORDER_TTL_S


def test_with_redis_away_a_post_is_taken_as_before(monkeypatch, people):
    class Away:
        def eval(self, *args):
            raise redis.ConnectionError("no Redis here")

    monkeypatch.setattr(cache._cache, "get_client", lambda write=False: Away())
    order = draft_order.Order(new_page(), 1)
    assert draft_order.take(people.alice.pk, "drain", order) is True
