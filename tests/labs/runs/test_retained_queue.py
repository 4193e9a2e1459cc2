"""The queue panel of a finished experiment: its retained DLQ, redrive one or all, purge, expiry."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone, translation

from labs.runs import retained_queue
from labs.runs.models import Run
from labs.runs.tasks import drain_retained_queue
from tests.live_helpers import POISON_ERROR, keep_parked

pytestmark = pytest.mark.redis
HX = {"HTTP_HX_REQUEST": "true"}
PARKED = ["pdf-3", "pdf-5", "pdf-7"]


@pytest.fixture
def drains(monkeypatch):
    """Run each drain the view starts here, in this process, once the request is done."""
    started: list[list[str]] = []
    monkeypatch.setattr(
        "labs.runs.dispatch.drain_retained_queue.apply_async",
        lambda args, **kwargs: started.append(args),
    )

    def run_all() -> float:
        t0 = time.monotonic()
        while started:
            drain_retained_queue.run(*started.pop(0))
        return time.monotonic() - t0

    return started, run_all


@pytest.fixture
def kept(people):
    """Alice's finished poison-live run with three messages parked in its retained DLQ."""
    run = Run.objects.create(
        owner=people.alice, lab="poison-live", params={}, seed=0, status="succeeded"
    )
    keep_parked(run.pk, PARKED)
    yield run
    retained_queue.clean_run_keys(run.pk)


def panel(client, run):
    return client.get(reverse("run-queue", args=[run.pk]), **HX)


def test_it_lists_the_dlq_with_receives_and_last_error_and_the_owners_actions(client, kept):
    client.force_login(kept.owner)
    page = client.get(kept.get_absolute_url()).content.decode()
    assert "Queue panel" in page
    for msg_id in PARKED:
        assert f"<td>{msg_id}</td><td>1</td>" in page
        assert f"PoisonMessage(&#x27;cannot be processed&#x27;) {msg_id}" in page
    assert "<dt>DLQ depth</dt><dd>3</dd>" in page and "Redrive all" in page
    assert "kept for about 60 more minutes" in page
    idle = panel(client, kept)
    assert idle.status_code == 286  # nothing moving: the panel does not poll


def test_it_redrives_one_message_and_the_fixed_consumer_makes_it(
    client, kept, drains, django_capture_on_commit_callbacks
):
    started, run_all = drains
    client.force_login(kept.owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("run-queue-redrive", args=[kept.pk]), {"message": "pdf-5"}, **HX
        )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Moved pdf-5 back to the queue" in html and 'hx-trigger="every 1s"' in html
    assert len(started) == 1
    run_all()
    q = retained_queue.snapshot(kept.pk)
    assert [d["id"] for d in q["dlq"]] == ["pdf-3", "pdf-7"]
    assert (q["done"], q["depth"], q["in_flight"], q["busy"]) == (1, 0, 0, False)
    again = client.post(reverse("run-queue-redrive", args=[kept.pk]), {"message": "pdf-5"}, **HX)
    assert again.status_code == 409
    assert "pdf-5 is not in the dead-letter queue" in again.content.decode()


def test_it_redrives_the_whole_dlq_no_faster_than_the_bounded_rate(
    client, people, drains, django_capture_on_commit_callbacks
):
    started, run_all = drains
    run = Run.objects.create(
        owner=people.alice, lab="poison-live", params={}, seed=0, status="succeeded"
    )
    ids = [f"pdf-{i}" for i in range(8)]
    keep_parked(run.pk, ids)
    try:
        client.force_login(people.alice)
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("run-queue-redrive", args=[run.pk]), **HX)
        assert "Redriving the 8 messages of the DLQ, at most 10 a second" in (
            response.content.decode()
        )
        assert panel(client, run).status_code == 200  # busy: the panel keeps polling
        took_s = run_all()
        # A bucket of one token at 10 a second: 7 of the 8 wait for a token each.
        assert took_s >= 7 / retained_queue.REDRIVE_RATE_PER_S
        q = retained_queue.snapshot(run.pk)
        assert (q["dlq_depth"], q["done"], q["busy"]) == (0, 8, False)
        assert panel(client, run).status_code == 286
    finally:
        retained_queue.clean_run_keys(run.pk)


def test_it_purges_the_dlq_for_good(client, kept):
    client.force_login(kept.owner)
    response = client.post(reverse("run-queue-purge", args=[kept.pk]), {"what": "dlq"}, **HX)
    assert response.status_code == 200
    assert "Purged the dead-letter queue: 3 messages deleted." in response.content.decode()
    assert retained_queue.snapshot(kept.pk)["dlq_depth"] == 0
    assert "The dead-letter queue is empty." in panel(client, kept).content.decode()


def test_it_purges_the_messages_waiting_in_the_queue(client, kept):
    retained_queue.redrive_one(kept.pk, "pdf-3")  # nothing drains it: it waits
    client.force_login(kept.owner)
    response = client.post(reverse("run-queue-purge", args=[kept.pk]), {"what": "queue"})
    assert response.status_code == 302  # a plain form: back to the run page, with the message
    page = client.get(response["Location"]).content.decode()
    assert "Purged the queue: 1 message deleted." in page
    q = retained_queue.snapshot(kept.pk)
    assert (q["depth"], q["dlq_depth"]) == (0, 2)


def test_only_the_owner_may_act_on_the_queue(client, kept, people):
    client.force_login(people.bob)  # another student: cannot even see the run
    assert client.post(reverse("run-queue-redrive", args=[kept.pk]), **HX).status_code == 404
    assert (
        client.post(reverse("run-queue-purge", args=[kept.pk]), {"what": "dlq"}, **HX).status_code
        == 404
    )
    assert panel(client, kept).status_code == 404
    assert retained_queue.snapshot(kept.pk)["dlq_depth"] == 3


def test_it_says_clearly_when_the_retained_queue_has_expired(client, kept):
    retained_queue.clean_run_keys(kept.pk)  # what its TTL does an hour after the run
    client.force_login(kept.owner)
    response = client.post(reverse("run-queue-redrive", args=[kept.pk]), **HX)
    assert response.status_code == 410
    html = response.content.decode()
    assert "This run&#x27;s queue is gone" in html
    assert "kept for 1 hour after the run ends" in html
    plain = client.post(reverse("run-queue-purge", args=[kept.pk]), {"what": "dlq"})
    assert plain.status_code == 410 and "kept for 1 hour" in plain.content.decode()
    assert "queue is gone" in client.get(kept.get_absolute_url()).content.decode()


def test_it_refuses_to_touch_the_queue_of_a_run_still_going(client, kept):
    Run.objects.filter(pk=kept.pk).update(status="running")
    client.force_login(kept.owner)
    response = client.post(reverse("run-queue-redrive", args=[kept.pk]), **HX)
    assert response.status_code == 409
    assert "still running" in response.content.decode()
    assert retained_queue.snapshot(kept.pk)["dlq_depth"] == 3


def test_it_refuses_an_unknown_purge(client, kept):
    client.force_login(kept.owner)
    response = client.post(reverse("run-queue-purge", args=[kept.pk]), {"what": "all"}, **HX)
    assert response.status_code == 422
    assert "Select a valid choice" in response.content.decode()


@pytest.mark.parametrize("language", ["en", "mr"])
def test_a_redrive_is_refused_while_the_drains_already_fill_the_experiment_cap(
    client, settings, people, kept, drains, django_capture_on_commit_callbacks, language
):
    """Two of Alice's other runs are still draining: a third drain would pass the cap of 2."""
    settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = 2
    started, _run_all = drains
    soon = timezone.now() + timedelta(seconds=30)
    for _ in range(2):
        Run.objects.create(
            owner=people.alice,
            lab="poison-live",
            params={},
            seed=0,
            status="succeeded",
            drain_until=soon,
        )
    client.force_login(people.alice)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("run-queue-redrive", args=[kept.pk]), **HX)

    assert response.status_code == 429
    html = response.content.decode()
    expected = {
        "en": "You already have 2 real-queue experiments or redrives going",
        "mr": "तुमचे आधीच 2 खऱ्या queue वरचे प्रयोग किंवा redrives चालू आहेत",
    }[language]
    assert expected in html
    assert started == []  # no drain task
    kept.refresh_from_db()
    assert kept.drain_until is None  # not counted as draining
    q = retained_queue.snapshot(kept.pk)
    assert (q["dlq_depth"], q["depth"], q["busy"]) == (3, 0, False)  # nothing moved


def test_it_says_the_last_error_in_marathi_with_the_raw_text_as_its_title(client, kept):
    from labs.experiments.error_words import error_words
    from tests.test_translations import visible_text

    client.force_login(kept.owner)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "mr"
    page = client.get(kept.get_absolute_url()).content.decode()
    with translation.override("mr"):
        words = error_words(f"{POISON_ERROR} pdf-3")
    assert words != f"{POISON_ERROR} pdf-3"
    shown = visible_text(page)
    assert words in shown and "cannot be processed" not in shown
    assert 'title="PoisonMessage(&#x27;cannot be processed&#x27;) pdf-3"' in page
