"""A press waits a bounded moment for its run's end, heard over Redis pub/sub (real Redis)."""

from __future__ import annotations

import threading
import uuid

import pytest

from labs.runs import ended

pytestmark = pytest.mark.redis


HANG_S = 30  # only guards against a hang: every wait below ends on an event, not a time


def announcing(run_id: str):
    """A `still_running` that announces `run_id` once the waiter is registered (so the
    message cannot come before the waiter listens) and says the run is still running."""

    def still_running() -> bool:
        ended.announce([run_id])
        return True

    return still_running


def test_a_waiter_wakes_when_its_run_is_announced(settings):
    settings.LAB_PRESS_WAITERS = 2
    run_id = str(uuid.uuid4())
    assert ended.wait_for_end(run_id, announcing(run_id), timeout_s=HANG_S)


def test_another_runs_announcement_does_not_wake_it(settings):
    settings.LAB_PRESS_WAITERS = 2
    assert ended._listener.ready(timeout_s=HANG_S)
    mine, other, marker = (str(uuid.uuid4()) for _ in range(3))
    waiting = ended._listener.register(mine)
    heard = ended._listener.register(marker)
    try:
        ended.announce([other])
        ended.announce([marker])  # one channel, in order: once the marker is heard, so was other
        assert heard.wait(HANG_S)
        assert not waiting.is_set()
    finally:
        ended._listener.unregister(mine, waiting)
        ended._listener.unregister(marker, heard)


def test_a_run_already_ended_is_not_waited_for(settings):
    settings.LAB_PRESS_WAITERS = 2
    asked = []
    assert ended.wait_for_end(str(uuid.uuid4()), lambda: asked.append(1) or False, HANG_S)
    assert asked == [1]


def test_no_wait_beyond_the_waiters_a_process_allows(settings):
    """With every slot taken, a press answers at once (its page polls) instead of waiting."""
    settings.LAB_PRESS_WAITERS = 1
    first = str(uuid.uuid4())
    registered = threading.Event()
    woke = []

    def hold() -> None:
        woke.append(ended.wait_for_end(first, lambda: registered.set() or True, HANG_S))

    holder = threading.Thread(target=hold)
    holder.start()
    assert registered.wait(HANG_S)  # the holder has its slot and is waiting
    # The second press is refused before it registers: its `still_running` is never asked.
    assert not ended.wait_for_end(str(uuid.uuid4()), lambda: pytest.fail("asked"), HANG_S)
    ended.announce([first])
    holder.join(timeout=HANG_S)
    assert not holder.is_alive() and woke == [True]


def test_no_wait_when_turned_off(settings):
    settings.LAB_PRESS_WAITERS = 2
    assert not ended.wait_for_end(str(uuid.uuid4()), lambda: pytest.fail("asked"), 0)


@pytest.mark.django_db
def test_the_task_says_so_for_a_run_deleted_while_queued():
    """A replaced draft's task finds no row: a press waiting on it is told at once."""
    import redis
    from django.conf import settings

    from labs.runs.tasks import execute_run

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
