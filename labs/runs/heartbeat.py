"""Each Celery worker says, once a second, that it is alive and which queues it consumes.

A control ping (`ops.health`) asks every worker and waits for answers, too slow to do on
every press of Run or every second; a beat is one write per worker per second, and
reading who is alive is one read (`telemetry_store.workers_alive`). A worker that stops
says so at once; one that is killed falls silent and counts as gone after
`ALIVE_FOR_S` (3 s). The beats go to the telemetry database, on any machine.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from celery.signals import worker_ready, worker_shutdown

from labs.runs import telemetry_store

logger = logging.getLogger(__name__)

# When this process started, as near as its own code can tell: a worker imports its tasks,
# and with them this module, before it takes its first message (Celery's loader imports
# them as the worker is set up, before it consumes).
STARTED_AT = time.time()


class Heartbeat:
    """Beats for `worker` on `queues` from a thread of its own until stopped."""

    def __init__(
        self,
        worker: str,
        queues: list[str],
        started: float | None = None,
        holding: Callable[[], list[str] | None] = lambda: None,
    ) -> None:
        self.worker, self.queues, self.holding = worker, queues, holding
        self.started = STARTED_AT if started is None else started
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name="heartbeat")

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        # If Redis does not answer, its beats stop anyway: gone within ALIVE_FOR_S.
        with contextlib.suppress(redis.RedisError):
            telemetry_store.gone(self.worker, self.queues)

    def _beat(self) -> None:
        failing = False
        while True:
            try:
                telemetry_store.beat(
                    self.worker, self.queues, started=self.started, holds=self.holding()
                )
                failing = False
            except redis.RedisError as exc:
                if not failing:  # once per outage, not once a second
                    logger.warning("heartbeat: Redis does not answer: %s", exc)
                failing = True
            if self._stop.wait(telemetry_store.BEAT_EVERY_S):
                return


def held_tags(consumer: Any) -> list[str] | None:
    """The delivery tags of the messages `consumer` (a Celery worker's) has taken and not
    yet acknowledged: running, waiting for a pool process, or waiting out a countdown.

    kombu keeps them in the task channel's QoS (`_delivered`, less the `_dirty` ones
    acknowledged but not yet flushed), which is not a public attribute: when it cannot be
    read (a kombu that keeps it elsewhere, the event loop changing it this instant), this
    says None, and the sweeper judges by start times alone, which never errs the other way.
    """
    try:
        qos = consumer.task_consumer.channel.qos
        delivered, dirty = list(qos._delivered), set(qos._dirty)
    except Exception:  # any failure to read it means the same: not known this beat
        return None
    return [str(tag) for tag in delivered if tag not in dirty]


_running: list[Heartbeat] = []


@worker_ready.connect
def _start_beating(sender=None, **_kwargs) -> None:
    queues = sorted(sender.app.amqp.queues.consume_from)
    beat = Heartbeat(sender.hostname, queues, holding=lambda: held_tags(sender))
    _running.append(beat.start())


@worker_shutdown.connect
def _stop_beating(**_kwargs) -> None:
    while _running:
        _running.pop().stop()
