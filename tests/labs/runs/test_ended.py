"""A press waits a bounded moment for its run's end, heard over Redis pub/sub (real Redis)."""

from __future__ import annotations

import threading
import uuid

import pytest

from labs.catalogue.entries import get_lab
from labs.runs import ended
from labs.runs.models import Run
from labs.runs.result_store import result_key
from labs.runs.tasks import execute_run

pytestmark = pytest.mark.redis


HANG_S = 30  # only guards against a hang: every wait below ends on an event, not a time


@pytest.fixture
def announced_once_listening(monkeypatch):
    """Runs are announced only once their waiter listens (so the message cannot come
    before), where the waiter looks for an announcement kept from before: none is."""

    def nothing_kept_then_announce(run_id: str) -> None:
        ended.announce([run_id])
        return None

    monkeypatch.setattr(ended, "_kept_message", nothing_kept_then_announce)


def test_a_waiter_wakes_when_its_run_is_announced(settings, announced_once_listening):
    settings.LAB_PRESS_WAITERS = 2
    run_id = str(uuid.uuid4())
    assert ended.wait_for_end(run_id, timeout_s=HANG_S) == run_id


def test_another_runs_announcement_does_not_wake_it(settings):
    settings.LAB_PRESS_WAITERS = 2
    assert ended._listener.ready(timeout_s=HANG_S)
    mine, other, marker = (str(uuid.uuid4()) for _ in range(3))
    waiting = ended._listener.register(mine)
    heard = ended._listener.register(marker)
    try:
        ended.announce([other])
        ended.announce([marker])  # one channel, in order: once the marker is heard, so was other
        assert heard.event.wait(HANG_S)
        assert not waiting.event.is_set()
    finally:
        ended._listener.unregister(mine, waiting)
        ended._listener.unregister(marker, heard)


def test_a_run_announced_before_its_waiter_listens_is_not_waited_for(settings):
    settings.LAB_PRESS_WAITERS = 2
    run_id = str(uuid.uuid4())
    ended.announce([run_id])  # kept for KEPT_S: the waiter finds it without an event
    assert ended.wait_for_end(run_id, timeout_s=HANG_S) == run_id


def test_no_wait_beyond_the_waiters_a_process_allows(settings, monkeypatch):
    """With every slot taken, a press answers at once (its page polls) instead of waiting."""
    settings.LAB_PRESS_WAITERS = 1
    first = str(uuid.uuid4())
    registered = threading.Event()
    woke = []

    def kept(run_id: str) -> None:
        if run_id != first:
            pytest.fail("a press without a slot looked")
        registered.set()

    monkeypatch.setattr(ended, "_kept_message", kept)
    holder = threading.Thread(target=lambda: woke.append(ended.wait_for_end(first, HANG_S)))
    holder.start()
    assert registered.wait(HANG_S)  # the holder has its slot and is waiting
    # The second press is refused before it registers: it never looks.
    assert ended.wait_for_end(str(uuid.uuid4()), HANG_S) is None
    ended.announce([first])
    holder.join(timeout=HANG_S)
    assert not holder.is_alive() and woke == [first]


def test_no_wait_when_turned_off(settings, monkeypatch):
    settings.LAB_PRESS_WAITERS = 2
    monkeypatch.setattr(ended, "_kept_message", lambda run_id: pytest.fail("looked"))
    assert ended.wait_for_end(str(uuid.uuid4()), 0) is None


@pytest.mark.django_db
def test_the_task_says_so_for_a_run_deleted_while_queued():
    """A replaced draft's task finds no row: a press waiting on it is told at once."""
    import redis
    from django.conf import settings

    gone = str(uuid.uuid4())
    pubsub = redis.Redis.from_url(settings.CELERY_BROKER_URL).pubsub()
    pubsub.subscribe(ended.CHANNEL)
    try:
        assert pubsub.get_message(timeout=HANG_S)["type"] == "subscribe"
        assert execute_run.apply(args=(gone,)).get() == "missing"
        # The Redis is shared: others' announcements may come first; None ends the look.
        messages = iter(lambda: pubsub.get_message(timeout=HANG_S), None)
        assert any(m["type"] == "message" and m["data"].decode() == gone for m in messages)
    finally:
        pubsub.close()


@pytest.mark.django_db
def test_a_press_is_answered_from_the_announcement_without_reading_its_run_back(
    people, django_assert_num_queries, settings
):
    """The worker says what it saved (status, times, the result's reference); the press
    that waits shows the run as saved, with no query (it made two: ended? then the row)."""
    settings.LAB_PRESS_WAITERS, settings.LAB_PRESS_WAIT_S = 2, HANG_S
    lab = get_lab("drain")
    params = lab.defaults() | {"per_worker": 130}
    pressed = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params=params,
        seed=0,
        draft=True,
        queue=settings.LAB_QUEUE,
        result_key=result_key(lab, params, 0),
    )
    execute_run.apply(args=(str(pressed.pk),))  # announced before the press listens: kept
    with django_assert_num_queries(0):
        shown = ended.as_it_ends(pressed)
    saved = Run.objects.get(pk=pressed.pk)
    assert shown.status == saved.status == Run.Status.SUCCEEDED
    for name in ("started_at", "finished_at", "stored_result_id", "same_as_id", "draft"):
        assert getattr(shown, name) == getattr(saved, name), name
    assert shown.result == saved.result  # the stored result, read when the page shows it


@pytest.mark.django_db
def test_a_follower_is_read_back_once_its_leader_is_announced(people, settings):
    """A run waiting on an identical one ends with it: the leader's announcement wakes the
    press, and the follower's own row is read (its times are its own)."""
    settings.LAB_PRESS_WAITERS, settings.LAB_PRESS_WAIT_S = 2, HANG_S
    lab = get_lab("drain")
    params, key = lab.defaults(), result_key(lab, lab.defaults(), 0)
    fields = {"lab": "drain", "params": params, "seed": 0, "result_key": key}
    leader = Run.objects.create(owner=people.alice, queue=settings.LAB_QUEUE, **fields)
    follower = Run.objects.create(
        owner=people.bob, queue=settings.LAB_QUEUE, same_as=leader, **fields
    )
    execute_run.apply(args=(str(leader.pk),))
    shown = ended.as_it_ends(follower)
    saved = Run.objects.get(pk=follower.pk)
    assert shown.status == Run.Status.SUCCEEDED
    assert (shown.finished_at, shown.same_as_id) == (saved.finished_at, leader.pk)
