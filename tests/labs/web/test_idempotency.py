"""An action a phone sends twice (its outbox, after a dropped link) is done once.

The key is the phone's (`Idempotency-Key`, made when the action was made); the server
remembers it in the shared Redis cache with the first answer (`labs.web.idempotency`).
"""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from labs.runs.models import Run
from labs.runs.predictions import Prediction
from teaching.models import Submission, SubmissionVersion
from tests.base import DUE, finished_run
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}
PREDICTED = {"predict-peak_backlog": "300"}


def key() -> str:
    return str(uuid.uuid4())


def press(client, data, idem: str | None, slug: str = "drain", name: str = "lab-detail"):
    headers = {"HTTP_IDEMPOTENCY_KEY": idem} if idem else {}
    return client.post(reverse(name, args=[slug]), data, **HX, **headers)


@pytest.fixture
def alice_in(client, people, published):
    client.force_login(people.alice)
    return client


def test_the_same_key_twice_makes_one_run_with_one_prediction_and_the_same_answer(alice_in):
    data = defaults_form("drain") | PREDICTED
    same = key()
    first, again = press(alice_in, data, same), press(alice_in, data, same)
    assert Run.objects.count() == 1 and Prediction.objects.count() == 1
    assert again.status_code == first.status_code == 200
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert again.content == first.content


def test_two_keys_are_two_actions(alice_in):
    data = defaults_form("drain") | PREDICTED
    press(alice_in, data, key())
    press(alice_in, data, key())
    assert Run.objects.count() == 2 and Prediction.objects.count() == 2


def test_without_a_key_every_press_runs_as_before(alice_in):
    data = defaults_form("drain")
    press(alice_in, data, None)
    press(alice_in, data, None)
    assert Run.objects.count() == 2


def test_a_draft_sent_twice_with_one_key_starts_one_draft(alice_in):
    data = defaults_form("drain") | {"per_worker": "150"}
    same = key()
    first = press(alice_in, data, same, name="lab-draft")
    again = press(alice_in, data, same, name="lab-draft")
    assert Run.objects.filter(draft=True).count() == 1
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"


def test_a_key_answers_only_its_own_user(client, people, published):
    data = defaults_form("drain")
    same = key()
    client.force_login(people.alice)
    press(client, data, same)
    client.force_login(people.bob)
    bobs = press(client, data, same)
    assert "Idempotent-Replayed" not in bobs
    assert sorted(Run.objects.values_list("owner__username", flat=True)) == ["alice", "bob"]


def test_a_key_not_made_by_the_site_is_refused_with_a_reason(alice_in):
    response = press(alice_in, defaults_form("drain"), "'; DROP TABLE")
    assert response.status_code == 400
    assert "reload the page" in response.content.decode()
    assert not Run.objects.exists()


def test_a_refusal_for_now_is_not_remembered_so_the_retry_runs(alice_in, settings):
    data, same = defaults_form("drain"), key()
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 1
    press(alice_in, data, key())  # one run going: the next is refused with a 429
    refused = press(alice_in, data, same)
    assert refused.status_code == 429 and Run.objects.count() == 1
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 2
    retried = press(alice_in, data, same)
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried
    assert Run.objects.count() == 2


def test_a_replay_past_the_bodys_time_says_so_and_still_acts_once(alice_in, people):
    from django.core.cache import cache
    from django.test import RequestFactory

    from labs.web.idempotency import cache_key

    data, same = defaults_form("drain"), key()
    press(alice_in, data, same)
    request = RequestFactory().post(reverse("lab-detail", args=["drain"]))
    request.user = people.alice
    cache.delete(cache_key(request, same) + ":body")  # as if IDEMPOTENCY_BODY_TTL_S were over
    again = press(alice_in, data, same)
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "no-body" and again.content == b""
    assert Run.objects.count() == 1


def test_an_answer_is_remembered_in_one_round_trip_to_redis(people, monkeypatch, settings):
    """Every slider move's draft is remembered: its body and its summary go together."""
    import redis
    from django.core.cache import cache
    from django.http import HttpResponse

    from labs.web.idempotency import remember, replay

    sent = []
    send = redis.connection.AbstractConnection.send_packed_command

    def counted(self, command, *args, **kwargs):
        sent.append(command)
        return send(self, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    name = f"idem:{people.alice.pk}:/labs/drain/draft/{key()}"
    answer = HttpResponse(b"<div>the draft's body</div>", status=200)
    remember(name, answer)
    assert len(sent) == 1
    monkeypatch.undo()
    kept = cache.get(name)
    assert kept == {"status": 200, "headers": {"Content-Type": answer["Content-Type"]}}
    assert replay(name, kept).content == answer.content
    client = cache._cache.get_client()
    ttl = {part: client.ttl(cache.make_key(name + part)) for part in ("", ":body")}
    assert settings.IDEMPOTENCY_BODY_TTL_S - 5 < ttl[":body"] <= settings.IDEMPOTENCY_BODY_TTL_S
    assert settings.IDEMPOTENCY_TTL_S - 5 < ttl[""] <= settings.IDEMPOTENCY_TTL_S


# A hand-in --------------------------------------------------------------------------------


def test_a_hand_in_sent_twice_with_one_key_is_one_submission_with_no_second_version(
    client, school, frozen
):
    frozen(DUE - timedelta(days=1))
    run = finished_run(school.alice)
    client.force_login(school.alice)
    submit = reverse("assignment-submit", args=[school.assignment_a.pk])
    same = key()
    first = client.post(submit, {"run": run.pk}, HTTP_IDEMPOTENCY_KEY=same)
    # The second comes as a plain form's field (a form without htmx cannot send a header).
    again = client.post(submit, {"run": run.pk, "idempotency_key": same})
    assert first.status_code == again.status_code == 302
    assert again["Location"] == first["Location"]
    submission = Submission.objects.get()
    assert submission.version == 1 and not SubmissionVersion.objects.exists()
    client.post(submit, {"run": run.pk}, HTTP_IDEMPOTENCY_KEY=key())
    assert Submission.objects.get().version == 2


# Two at once ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_requests_with_one_key_at_once_make_one_run(people, published, monkeypatch):
    """The first holds the key while it works; the second, meanwhile, is told to ask again
    (409, Retry-After), and asking again once the first is done gets the first's answer."""
    from labs.web import start

    inside, let_go = threading.Event(), threading.Event()
    real = start.run_from_form

    def held(*args, **kwargs):
        inside.set()
        assert let_go.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr("labs.web.views.pages.run_from_form", held)
    data, same = defaults_form("drain") | PREDICTED, key()
    answers: dict[str, object] = {}

    def first() -> None:
        client = Client(raise_request_exception=False)
        client.force_login(people.alice)
        try:
            answers["first"] = press(client, data, same)
        finally:
            connection.close()

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert inside.wait(timeout=30)
        second = Client()
        second.force_login(people.alice)
        answers["second"] = press(second, data, same)
    finally:
        let_go.set()
        thread.join(timeout=60)
    later = press(second, data, same)

    assert answers["second"].status_code == 409
    assert answers["second"]["Retry-After"] == "1"
    assert Run.objects.count() == 1 and Prediction.objects.count() == 1
    assert answers["first"].status_code == 200
    assert later["Idempotent-Replayed"] == "true"
    assert later.content == answers["first"].content
