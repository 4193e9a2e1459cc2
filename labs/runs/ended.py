"""A run has ended: said by the worker that ended it, heard by the web thread waiting on it.

A quick simulation takes a worker 20–100 ms. Answering its Run with "queued" and letting
the page poll for it costs a student a round trip and the server a poll's render (issue
29: the first poll alone was most of one student's wait). So the press waits a bounded
moment (`LAB_PRESS_WAIT_S`) for its run to end and, if it does, answers with the chart.

The worker PUBLISHes the run's id on one Redis channel once its row is saved; each web
process keeps one subscriber thread that wakes whichever of its threads waits on that id.
Pub/sub reaches every web process on every machine against the one Redis, and no key is
left behind. A message missed (the subscriber reconnecting, Redis restarting) costs only
the wait: the press then answers "queued" and the page polls as before, so nothing here
can lose a run or show a wrong one.

A waiting thread holds a web thread, not a core. At most `LAB_PRESS_WAITERS` threads of a
process wait at once: under a class's burst the others answer at once and poll, so the
web threads stay free to take the class's presses.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable

import redis
from django.conf import settings

from labs.runs import redis_clients

logger = logging.getLogger(__name__)

# Pub/sub channels are server-wide (not per database); the ids are UUIDs, so two sites
# (or test sessions) sharing a Redis only ever wake their own waiters.
CHANNEL = "labs:runs-ended"


def announce(run_ids: Iterable) -> None:
    """Say that these runs have ended (after their rows are saved). Never raises: a missed
    announcement only makes a waiting press fall back to polling."""
    try:
        client = redis_clients.broker()
        for run_id in run_ids:
            client.publish(CHANNEL, str(run_id))
    except (redis.RedisError, OSError) as exc:
        logger.warning("could not announce the end of runs: %s", exc)


def as_it_ends(run):
    """`run` as saved once it ended, if it ends within `LAB_PRESS_WAIT_S`; else as it is.

    Only a run on the quick queue is waited for (a heavy one takes seconds or more). A run
    that follows an identical one still running (the result store) ends when that one
    does, so its leader's announcement is the one waited for.
    """
    from labs.runs.models import Run

    if run.is_finished or run.queue != settings.LAB_QUEUE:
        return run
    finished = Run.objects.filter(pk=run.pk, status__in=Run.FINISHED)
    ended = wait_for_end(
        run.same_as_id or run.pk, lambda: not finished.exists(), settings.LAB_PRESS_WAIT_S
    )
    if not ended:
        return run
    return Run.objects.filter(pk=run.pk).first() or run  # gone meanwhile: as it was


def wait_for_end(run_id, still_running, timeout_s: float) -> bool:
    """Wait up to `timeout_s` for `run_id` to be announced as ended; True if it was (or
    `still_running()` already says it is not).

    `still_running` is asked once the waiter is registered, so a run that ended between
    its publish and this call is not waited for in vain. False at once when this process
    already has its `LAB_PRESS_WAITERS` waiting, or no subscriber can be had.
    """
    if timeout_s <= 0 or not _listener.ready():
        return False
    if not _slots.acquire():
        return False
    try:
        event = _listener.register(str(run_id))
        try:
            if not still_running():
                return True
            return event.wait(timeout_s)
        finally:
            _listener.unregister(str(run_id), event)
    finally:
        _slots.release()


class _Slots:
    """A per-process count of threads waiting, bounded by `LAB_PRESS_WAITERS`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = 0

    def acquire(self) -> bool:
        with self._lock:
            if self._taken >= settings.LAB_PRESS_WAITERS:
                return False
            self._taken += 1
            return True

    def release(self) -> None:
        with self._lock:
            self._taken -= 1


class _Listener:
    """One subscriber thread per process (started on first use: never before a fork)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[threading.Event]] = {}
        self._subscribed = threading.Event()
        self._pid: int | None = None

    def ready(self, timeout_s: float = 0.5) -> bool:
        """Start the thread in this process if need be; True once it is subscribed."""
        with self._lock:
            if self._pid != os.getpid():  # first use here, or a forked child of a user
                self._pid = os.getpid()
                self._subscribed = threading.Event()
                threading.Thread(target=self._listen, name="runs-ended", daemon=True).start()
        return self._subscribed.wait(timeout_s)

    def register(self, run_id: str) -> threading.Event:
        event = threading.Event()
        with self._lock:
            self._waiters.setdefault(run_id, set()).add(event)
        return event

    def unregister(self, run_id: str, event: threading.Event) -> None:
        with self._lock:
            waiting = self._waiters.get(run_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[run_id]

    def _wake(self, run_id: str) -> None:
        with self._lock:
            for event in self._waiters.get(run_id, ()):
                event.set()

    def _listen(self) -> None:
        subscribed = self._subscribed
        while True:
            try:
                pubsub = redis_clients.ended_subscriber().pubsub()
                pubsub.subscribe(CHANNEL)
                for message in pubsub.listen():
                    if message["type"] == "subscribe":
                        subscribed.set()
                    elif message["type"] == "message":
                        self._wake(message["data"].decode())
            except (redis.RedisError, OSError) as exc:
                subscribed.clear()  # presses answer at once (and poll) until it is back
                logger.warning("run-ended subscriber lost Redis (%s); again in 1 s", exc)
                time.sleep(1)


_listener = _Listener()
_slots = _Slots()
