"""A run has ended: said by the worker that ended it, heard by the web thread waiting on it.

A quick simulation takes a worker 20–100 ms. Answering its Run with "queued" and letting
the page poll for it costs a student a round trip and the server a poll's render (issue
29: the first poll alone was most of one student's wait). So the press waits a bounded
moment (`LAB_PRESS_WAIT_S`) for its run to end and, if it does, answers with the chart.

The worker PUBLISHes the run's id on one Redis channel once its row is saved; each web
process keeps one subscriber thread that wakes whichever of its threads waits on that id.
Pub/sub reaches every web process on every machine against the one Redis. A run that
succeeded is announced with what its page needs of the saved row (`SAVED`: its status,
times and result's reference), so the press answers without reading the row back; and
the announcement is also kept under a key for `KEPT_S`, which a waiter reads once it
listens, so a run that ended just before is not waited for in vain. Neither touches the
database: a draft's post used to ask it twice (had the run ended, then the whole row). A
message missed (the subscriber reconnecting, Redis restarting) costs only the wait: the
press then answers "queued" and the page polls as before, so nothing here can lose a run
or show a wrong one.

A waiting thread holds a web thread, not a core. At most `LAB_PRESS_WAITERS` threads of a
process wait at once: under a class's burst the others answer at once and poll, so the
web threads stay free to take the class's presses.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import redis
from django.conf import settings

from labs.runs import redis_clients

logger = logging.getLogger(__name__)

# Pub/sub channels are server-wide (not per database); the ids are UUIDs, so two sites
# (or test sessions) sharing a Redis only ever wake their own waiters.
CHANNEL = "labs:runs-ended"
# Each announcement is kept this long under `labs:run-ended:<id>`, for a waiter that
# starts listening after it was published (a press waits 0.6 s at most).
KEPT_S = 30
# What a succeeded run's announcement carries of its saved row: all its page shows that
# the worker changed (the rest is as the press made it).
SAVED = ("status", "started_at", "finished_at", "stored_result_id", "same_as_id", "draft")
TIMES = ("started_at", "finished_at")


def announce(run_ids: Iterable) -> None:
    """Say that these runs have ended (after their rows are saved). Never raises: a missed
    announcement only makes a waiting press fall back to polling."""
    _say([str(run_id) for run_id in run_ids])


def announce_succeeded(run) -> None:
    """Say that `run` succeeded, with what its page needs of its saved row (`SAVED`)."""
    saved = {name: getattr(run, name) for name in SAVED}
    for name in TIMES:
        saved[name] = saved[name] and saved[name].isoformat()
    _say([json.dumps({"id": str(run.pk), **saved}, default=str)])


def _say(messages: list[str]) -> None:
    try:
        pipe = redis_clients.broker().pipeline(transaction=False)
        for message in messages:
            pipe.set(_kept(_run_id(message)), message, ex=KEPT_S)
            pipe.publish(CHANNEL, message)
        pipe.execute()
    except (redis.RedisError, OSError) as exc:
        logger.warning("could not announce the end of runs: %s", exc)


def _run_id(message: str) -> str:
    return json.loads(message)["id"] if message.startswith("{") else message


def _kept(run_id: str) -> str:
    return f"labs:run-ended:{run_id}"


def saved_fields(message: str) -> dict[str, Any]:
    """What an announcement says of the saved row (empty for an id alone)."""
    if not message.startswith("{"):
        return {}
    fields = json.loads(message)
    del fields["id"]
    for name in TIMES:
        if fields.get(name):
            fields[name] = datetime.fromisoformat(fields[name])
    return fields


def as_it_ends(run):
    """`run` as saved once it ended, if it ends within `LAB_PRESS_WAIT_S`; else as it is.

    Only a run on the quick queue is waited for (a heavy one takes seconds or more). A run
    that follows an identical one still running (the result store) ends when that one
    does, so its leader's announcement is the one waited for, and the follower's own row
    is read (the leader's fields are not its own).
    """
    from labs.runs.models import Run

    if run.is_finished or run.queue != settings.LAB_QUEUE:
        return run
    waited = run.same_as_id or run.pk
    message = wait_for_end(waited, settings.LAB_PRESS_WAIT_S)
    if message is None:
        return run
    saved = saved_fields(message) if waited == run.pk else {}
    if saved.get("status") == Run.Status.SUCCEEDED:
        for name, value in saved.items():
            setattr(run, name, value)
        return run
    return Run.objects.filter(pk=run.pk).first() or run  # gone meanwhile: as it was


def wait_for_end(run_id, timeout_s: float) -> str | None:
    """Wait up to `timeout_s` for `run_id` to be announced as ended: its announcement if it
    was (or had been, a moment before: the kept one), else None.

    The kept announcement is read once the waiter is registered, so a run that ended
    between its publish and this call is not waited for in vain. None at once when this
    process already has its `LAB_PRESS_WAITERS` waiting, or no subscriber can be had.
    """
    if timeout_s <= 0 or not _listener.ready():
        return None
    if not _slots.acquire():
        return None
    try:
        waiter = _listener.register(str(run_id))
        try:
            kept = _kept_message(str(run_id))
            if kept is not None:
                return kept
            return waiter.message if waiter.event.wait(timeout_s) else None
        finally:
            _listener.unregister(str(run_id), waiter)
    finally:
        _slots.release()


def _kept_message(run_id: str) -> str | None:
    try:
        kept = redis_clients.broker().get(_kept(run_id))
    except (redis.RedisError, OSError):
        return None
    return kept.decode() if kept is not None else None


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


class _Waiter:
    """One thread waiting on a run: woken with the run's announcement."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.message: str | None = None


class _Listener:
    """One subscriber thread per process (started on first use: never before a fork)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[_Waiter]] = {}
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

    def register(self, run_id: str) -> _Waiter:
        waiter = _Waiter()
        with self._lock:
            self._waiters.setdefault(run_id, set()).add(waiter)
        return waiter

    def unregister(self, run_id: str, waiter: _Waiter) -> None:
        with self._lock:
            waiting = self._waiters.get(run_id)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._waiters[run_id]

    def _wake(self, message: str) -> None:
        with self._lock:
            for waiter in self._waiters.get(_run_id(message), ()):
                waiter.message = message
                waiter.event.set()

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
