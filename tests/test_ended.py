"""A press waits a bounded moment for its run's end, heard over Redis pub/sub (real Redis)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from labs.runs import ended

pytestmark = pytest.mark.redis


def announce_later(run_id: str, after_s: float) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(after_s), ended.announce([run_id])))
    thread.start()
    return thread


def test_a_waiter_wakes_when_its_run_is_announced(settings):
    settings.LAB_PRESS_WAITERS = 2
    run_id = str(uuid.uuid4())
    announcer = announce_later(run_id, 0.1)
    assert ended.wait_for_end(run_id, lambda: True, timeout_s=10)
    announcer.join()


def test_another_runs_announcement_does_not_wake_it(settings):
    settings.LAB_PRESS_WAITERS = 2
    announcer = announce_later(str(uuid.uuid4()), 0.05)
    assert not ended.wait_for_end(str(uuid.uuid4()), lambda: True, timeout_s=0.4)
    announcer.join()


def test_a_run_already_ended_is_not_waited_for(settings):
    settings.LAB_PRESS_WAITERS = 2
    asked = []
    assert ended.wait_for_end(str(uuid.uuid4()), lambda: asked.append(1) or False, 10)
    assert asked == [1]


def test_no_wait_beyond_the_waiters_a_process_allows(settings):
    """With every slot taken, a press answers at once (its page polls) instead of waiting."""
    settings.LAB_PRESS_WAITERS = 1
    first = str(uuid.uuid4())
    holder = threading.Thread(target=ended.wait_for_end, args=(first, lambda: True, 10))
    holder.start()
    time.sleep(0.2)  # the holder is registered and waiting
    second = str(uuid.uuid4())
    announcer = announce_later(second, 0.1)
    assert not ended.wait_for_end(second, lambda: pytest.fail("asked"), 10)
    ended.announce([first])
    holder.join(timeout=5)
    announcer.join()
    assert not holder.is_alive()


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
        assert pubsub.get_message(timeout=2)["type"] == "subscribe"
        assert execute_run.apply(args=(gone,)).get() == "missing"
        heard = pubsub.get_message(timeout=2)
        assert heard is not None and heard["data"].decode() == gone
    finally:
        pubsub.close()
